package mcpwire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestSamplingRequestIsShownSanitized(t *testing.T) {
	sr, err := SamplingRequest(&mcp.CreateMessageWithToolsParams{
		SystemPrompt: "Be brief.\x00",
		MaxTokens:    200,
		Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{
			&mcp.TextContent{Text: "Weather in Paris?"},
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		}}},
		Tools:            []*mcp.Tool{{Name: "get_weather", InputSchema: map[string]any{"type": "object"}}, {Name: "bad\nname"}},
		ToolChoice:       &mcp.ToolChoice{Mode: "auto"},
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "claude"}}, SpeedPriority: 0.8},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sr.SystemPrompt != "Be brief." || sr.MaxTokens != 200 || sr.ToolChoice != "auto" ||
		len(sr.Tools) != 1 || sr.Tools[0].Name != "get_weather" || sr.ModelPreferences == nil || sr.ModelPreferences.Hints[0] != "claude" {
		t.Errorf("request %+v", sr)
	}
	if len(sr.Messages) != 1 || len(sr.Messages[0].Content) != 2 || sr.Messages[0].Content[1].Data != "iVBORw==" {
		t.Errorf("messages %+v", sr.Messages)
	}
	if _, err := SamplingRequest(&mcp.CreateMessageWithToolsParams{Messages: []*mcp.SamplingMessageV2{nil}}); err == nil {
		t.Error("a null message was shown")
	}
}

func TestSamplingResultIsTheServersAnswer(t *testing.T) {
	res, err := SamplingResult(&wire.SamplingResult{Model: "human", StopReason: wire.StopToolUse,
		Content: []wire.SamplingContent{{Type: wire.ContentToolUse, ID: "t1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Content)
	if res.Model != "human" || res.StopReason != string(wire.StopToolUse) || res.Role != mcp.Role(wire.RoleAssistant) ||
		string(b) != `[{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Paris"}}]` {
		t.Errorf("result %+v (%s)", res, b)
	}
}

func TestAgentReplyIsCheckedAndSanitized(t *testing.T) {
	got, err := AgentReply(&mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "m\x1b1", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}})
	if err != nil || got.Model != "m 1" || len(got.Content) != 1 || got.Content[0].Text != "hi" {
		t.Errorf("reply %+v, %v", got, err)
	}
	for name, r := range map[string]*mcp.CreateMessageWithToolsResult{
		"nothing":   nil,
		"user role": {Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}},
		"a link":    {Role: "assistant", Content: []mcp.Content{&mcp.ResourceLink{URI: "x://y"}}},
	} {
		var we *wire.Error
		if _, err := AgentReply(r); !errors.As(err, &we) || we.Code != wire.CodeUpstream || !strings.HasPrefix(we.Message, "the agent's client replied with") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if we := AgentFailure(&jsonrpc.Error{Code: -1, Message: "no\x1b"}); we.Message != "the agent's client did not answer: no" {
		t.Errorf("failure %+v", we)
	}
}
