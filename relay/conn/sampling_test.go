package conn

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sampled is what a fixture tool reports of its sampling request.
type sampled struct {
	Model      string          `json:"model,omitempty"`
	StopReason string          `json:"stopReason,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	Code       int64           `json:"code,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// addSampleTool adds a tool that sends params (stateful era) and reports
// the result.
func addSampleTool(s *mcp.Server, name string, params func() *mcp.CreateMessageWithToolsParams) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return reportSample(req.Session.CreateMessageWithTools(ctx, params())), nil
		})
}

// addSampleInputTool adds a tool that asks through an input request
// (2026-07-28) and reports the response.
func addSampleInputTool(s *mcp.Server, name string, params func() *mcp.CreateMessageWithToolsParams) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["reply"].(*mcp.CreateMessageWithToolsResult); ok {
				return reportSample(r, nil), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"reply": params()}, RequestState: "s"}, nil
		})
}

func reportSample(res *mcp.CreateMessageWithToolsResult, err error) *mcp.CallToolResult {
	var o sampled
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		o.Code, o.Error = rpcErr.Code, rpcErr.Message
	case err != nil:
		o.Error = err.Error()
	default:
		o.Model, o.StopReason = res.Model, res.StopReason
		o.Content, _ = json.Marshal(res.Content)
	}
	b, _ := json.Marshal(o)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

func sampledOf(t *testing.T, res *mcp.CallToolResult, err error) sampled {
	t.Helper()
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	var o sampled
	if len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &o) != nil {
		t.Fatalf("result %+v is not a sampling report", res)
	}
	return o
}

func weatherParams() *mcp.CreateMessageWithToolsParams {
	return &mcp.CreateMessageWithToolsParams{
		SystemPrompt: "Be brief.",
		MaxTokens:    200,
		Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{
			&mcp.TextContent{Text: "Weather in Paris?"},
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		}}},
		Tools: []*mcp.Tool{{Name: "get_weather", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"},
		}}},
		ToolChoice:       &mcp.ToolChoice{Mode: "auto"},
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "claude"}}, SpeedPriority: 0.8},
	}
}

func TestSamplingCapabilityFollowsTheConfig(t *testing.T) {
	for _, tt := range []struct {
		name  string
		asker Asker
		modes AskModes
		want  bool
	}{
		{"on", newScriptedAsker(), AllAskModes, true},
		{"off", newScriptedAsker(), AskModes{Form: true, URL: true}, false},
		{"no asker", nil, AllAskModes, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, legacyEra, nil)
			f.server.AddTool(&mcp.Tool{Name: "caps", InputSchema: map[string]any{"type": "object"}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					b, _ := json.Marshal(req.Session.InitializeParams().Capabilities)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
				})
			c, _ := startAsking(t, f, tt.asker, tt.modes)
			res, err := c.CallTool(context.Background(), toolCall("caps", nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			var caps mcp.ClientCapabilities
			if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &caps); err != nil {
				t.Fatal(err)
			}
			if got := caps.Sampling != nil; got != tt.want {
				t.Fatalf("sampling advertised %t, want %t (%s)", got, tt.want, res.Content[0].(*mcp.TextContent).Text)
			}
			if tt.want && caps.Sampling.Tools == nil {
				t.Errorf("sampling advertised without tools: %s", res.Content[0].(*mcp.TextContent).Text)
			}
		})
	}
}

func TestSamplingIsAskedAndAnswered(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e, nil)
			wantFrom := FromRequest
			if e.stateless {
				addSampleInputTool(f.server, "sample", weatherParams)
				wantFrom = FromInput
			} else {
				addSampleTool(f.server, "sample", weatherParams)
			}
			asker := newScriptedAsker()
			c, _ := startAsking(t, f, asker, AllAskModes)
			done := callAsync(c, context.Background(), "sample")
			call := asker.next(t)
			p := call.sample
			if p == nil || call.from != wantFrom {
				t.Fatalf("asked %+v from %v, want a sampling request from %v", call, call.from, wantFrom)
			}
			if p.SystemPrompt != "Be brief." || p.MaxTokens != 200 || p.ToolChoice == nil || p.ToolChoice.Mode != "auto" ||
				len(p.Tools) != 1 || p.Tools[0].Name != "get_weather" || p.ModelPreferences == nil || p.ModelPreferences.Hints[0].Name != "claude" {
				t.Errorf("request %+v", p)
			}
			if len(p.Messages) != 1 || len(p.Messages[0].Content) != 2 || string(p.Messages[0].Content[1].(*mcp.ImageContent).Data) != "\x89PNG" {
				t.Errorf("messages %+v", p.Messages)
			}
			call.answerSample(&mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "human", StopReason: "toolUse",
				Content: []mcp.Content{&mcp.ToolUseContent{ID: "t1", Name: "get_weather", Input: map[string]any{"city": "Paris"}}}}, nil)
			res, err := awaitCall(t, done)
			o := sampledOf(t, res, err)
			if o.Model != "human" || o.StopReason != "toolUse" || string(o.Content) != `[{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Paris"}}]` {
				t.Errorf("server got %+v (%s)", o, o.Content)
			}
		})
	}
}

// The asker's JSON-RPC error is the server's answer as it is.
func TestSamplingErrorOfTheAskerReachesTheServer(t *testing.T) {
	for _, code := range []int64{RPCUserRejected, RPCRequestTimeout} {
		f := newFixture(t, legacyEra, nil)
		addSampleTool(f.server, "sample", weatherParams)
		asker := newScriptedAsker()
		c, _ := startAsking(t, f, asker, AllAskModes)
		done := callAsync(c, context.Background(), "sample")
		asker.next(t).answerSample(nil, &jsonrpc.Error{Code: code, Message: "no"})
		res, err := awaitCall(t, done)
		if o := sampledOf(t, res, err); o.Code != code || o.Model != "" {
			t.Errorf("server got %+v, want code %d and no message", o, code)
		}
	}
}

func TestSamplingWithdrawnWhenTheServerCancels(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	cancelAsk, release := make(chan struct{}), make(chan struct{})
	f.server.AddTool(&mcp.Tool{Name: "impatient", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			askCtx, cancel := context.WithCancel(ctx)
			go func() {
				<-cancelAsk
				cancel()
			}()
			res := reportSample(req.Session.CreateMessageWithTools(askCtx, weatherParams()))
			<-release // the call stays open, so that notifications/cancelled reaches the client
			return res, nil
		})
	asker := newScriptedAsker()
	c, _ := startAsking(t, f, asker, AllAskModes)
	callAsync(c, context.Background(), "impatient")
	call := asker.next(t)
	close(cancelAsk)
	defer close(release)
	select {
	case <-call.ctx.Done():
	case <-time.After(waitFor):
		t.Fatal("the ask was not withdrawn when the server cancelled its request")
	}
}
