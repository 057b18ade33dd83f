package models

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

var _ session.Drafter = (*Drafter)(nil)

// drafter is the drafter of a model at fx speaking provider, with the
// operator's key; it takes images.
func drafter(t *testing.T, fx *modelfixture.Server, provider llm.Kind) *Drafter {
	t.Helper()
	url := fx.OpenAIURL()
	if provider == llm.Anthropic {
		url = fx.AnthropicURL()
	}
	r := newRegistry(t, []Spec{{Name: "m", Provider: provider, URL: url, Model: "model-test", Key: testKey, Images: true}}, Options{})
	d, err := r.Drafter("")
	if err != nil || d == nil {
		t.Fatalf("drafter: %v, %v", d, err)
	}
	return d
}

// body is the JSON of a request the fixture got.
func body(t *testing.T, req *modelfixture.Request) map[string]any {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(req.Body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// weatherRequest is a second-round sampling request: a user question with
// an image, the assistant's tool call, and the tool's result.
func weatherRequest() *wire.SamplingRequest {
	return &wire.SamplingRequest{
		SystemPrompt:  "You are terse.",
		MaxTokens:     300,
		Temperature:   0.5,
		StopSequences: []string{"END"},
		ToolChoice:    wire.ToolChoiceAuto,
		Tools: []wire.Tool{{Name: "get_weather", Description: "Weather of a city.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}},
		Messages: []wire.SamplingMessage{
			{Role: wire.RoleUser, Content: []wire.SamplingContent{
				{Type: wire.ContentText, Text: "What is the weather where this photo was taken?"},
				{Type: wire.ContentImage, MIMEType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Role: wire.RoleAssistant, Content: []wire.SamplingContent{
				{Type: wire.ContentToolUse, ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)},
			}},
			{Role: wire.RoleUser, Content: []wire.SamplingContent{
				{Type: wire.ContentToolResult, ToolUseID: "call_1", Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "18°C, cloudy"}}},
			}},
		},
	}
}

func TestDraftMapsMessagesImagesAndToolsToChatCompletions(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
		modelfixture.Calls(modelfixture.ToolCall{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Lyon"}`}),
	}})
	res, err := drafter(t, fx, llm.OpenAI).Draft(t.Context(), weatherRequest())
	if err != nil {
		t.Fatal(err)
	}
	got := fx.Next(t)
	if got.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("request to %s with auth %q", got.Path, got.Header.Get("Authorization"))
	}
	b := body(t, got)
	if b["model"] != "model-test" || b["max_tokens"] != 300.0 || b["temperature"] != 0.5 || b["tool_choice"] != "auto" {
		t.Errorf("request parameters %v", b)
	}
	if stop, _ := b["stop"].([]any); len(stop) != 1 || stop[0] != "END" {
		t.Errorf("stop %v", b["stop"])
	}
	msgs := got.Messages
	if len(msgs) != 4 || msgs[0].Role != "system" || msgs[0].Text() != "You are terse." {
		t.Fatalf("messages %+v, want system, user, assistant, tool", msgs)
	}
	var parts []map[string]any
	json.Unmarshal(msgs[1].Content, &parts)
	if msgs[1].Role != "user" || len(parts) != 2 || parts[1]["type"] != "image_url" ||
		parts[1]["image_url"].(map[string]any)["url"] != "data:image/png;base64,iVBORw0KGgo=" {
		t.Errorf("user message %s", msgs[1].Raw)
	}
	if calls := msgs[2].ToolCalls(); msgs[2].Role != "assistant" || len(calls) != 1 || calls[0].ID != "call_1" ||
		calls[0].Name != "get_weather" || calls[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("assistant message %s", msgs[2].Raw)
	}
	if r := msgs[3].ToolResults(); len(r) != 1 || r[0].ID != "call_1" || r[0].Content != "18°C, cloudy" {
		t.Errorf("tool message %s", msgs[3].Raw)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "get_weather" || !strings.Contains(string(got.Tools[0].Schema), `"required":["city"]`) {
		t.Errorf("tools %+v", got.Tools)
	}

	if res.Model != "model-test" || res.StopReason != wire.StopToolUse || len(res.Content) != 1 {
		t.Fatalf("result %+v", res)
	}
	if c := res.Content[0]; c.Type != wire.ContentToolUse || c.ID != "call_2" || c.Name != "get_weather" || string(c.Input) != `{"city":"Lyon"}` {
		t.Errorf("tool_use %+v", c)
	}
}

func TestDraftMapsToAnthropicMessages(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
		{Reasoning: "They asked about Paris.", Text: "Cloudy in Paris.", Stop: modelfixture.StopMaxTokens},
	}})
	res, err := drafter(t, fx, llm.Anthropic).Draft(t.Context(), weatherRequest())
	if err != nil {
		t.Fatal(err)
	}
	got := fx.Next(t)
	if got.Path != "/v1/messages" || got.Header.Get("x-api-key") != testKey || got.System != "You are terse." || got.MaxTokens != 300 {
		t.Errorf("request to %s, system %q, max tokens %d", got.Path, got.System, got.MaxTokens)
	}
	if len(got.Messages) != 3 {
		t.Fatalf("messages %+v, want user, assistant, user", got.Messages)
	}
	if !strings.Contains(string(got.Messages[0].Content), `"type":"image"`) {
		t.Errorf("no image block in %s", got.Messages[0].Content)
	}
	if calls := got.Messages[1].ToolCalls(); len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("tool_use %s", got.Messages[1].Raw)
	}
	if r := got.Messages[2].ToolResults(); len(r) != 1 || r[0].ID != "call_1" || r[0].Content != "18°C, cloudy" {
		t.Errorf("tool_result %s", got.Messages[2].Raw)
	}
	if res.StopReason != wire.StopMaxTokens || len(res.Content) != 1 || res.Content[0].Text != "Cloudy in Paris." {
		t.Errorf("result %+v: want the text alone, cut at max tokens", res)
	}
}

func TestDraftReturnsText(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{modelfixture.Text("Hello there.")}})
	res, err := drafter(t, fx, llm.OpenAI).Draft(t.Context(), &wire.SamplingRequest{MaxTokens: 10, ToolChoice: wire.ToolChoiceAuto,
		Messages: []wire.SamplingMessage{{Role: wire.RoleUser, Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "Hi"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, fx.Next(t)); b["tools"] != nil || b["tool_choice"] != nil {
		t.Errorf("tools sent without any offered: %v", b)
	}
	if res.Model != "model-test" || res.StopReason != wire.StopEndTurn || len(res.Content) != 1 || res.Content[0].Text != "Hello there." {
		t.Errorf("result %+v", res)
	}
}

func TestDraftErrorsAreUpstreamAndNeverCarryTheKey(t *testing.T) {
	pad := strings.Repeat("x", 185) // the endpoint's message is cut at 200 runes: in the key, were it not removed first
	for _, reply := range []modelfixture.Reply{
		modelfixture.Status(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`, ""),
		// cut at its cap, an error must not keep the start of a key
		modelfixture.Status(http.StatusUnauthorized, `{"error":{"message":"`+pad+` key `+testKey+`"}}`, ""),
	} {
		fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{reply}})
		_, err := drafter(t, fx, llm.OpenAI).Draft(t.Context(), weatherRequest())
		we, ok := errors.AsType[*wire.Error](err)
		if !ok || we.Code != wire.CodeUpstream || !strings.Contains(we.Message, "401") {
			t.Fatalf("error %v, want an upstream wire error saying 401", err)
		}
		if strings.Contains(we.Message, testKey[:8]) {
			t.Errorf("error message %q holds the key, or its start", we.Message)
		}
	}
}

func TestDraftRefusesBadToolArguments(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{
		modelfixture.Calls(modelfixture.ToolCall{Name: "get_weather", Arguments: "[1,2]"}),
	}})
	if _, err := drafter(t, fx, llm.OpenAI).Draft(t.Context(), weatherRequest()); codeOf(err) != wire.CodeUpstream {
		t.Errorf("tool call arguments that are not an object: %v, want an upstream error", err)
	}
}

func TestDraftStopsWhenCancelled(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{{Text: "Once", Endless: time.Millisecond}}})
	d := drafter(t, fx, llm.OpenAI)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := d.Draft(ctx, weatherRequest())
		done <- err
	}()
	fx.Next(t)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("a cancelled draft ended with %v", err)
	}
}

// audio is a request of one WAV and one OGG sound.
func audioRequest() *wire.SamplingRequest {
	return &wire.SamplingRequest{MaxTokens: 5, Messages: []wire.SamplingMessage{{Role: wire.RoleUser, Content: []wire.SamplingContent{
		{Type: wire.ContentAudio, MIMEType: "audio/wav", Data: "UklGRg=="},
		{Type: wire.ContentAudio, MIMEType: "audio/ogg", Data: "T2dnUw=="},
	}}}}
}

func TestAudioIsPassedWhereTheEndpointTakesIt(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply { return modelfixture.Text("heard") }})
	if _, err := drafter(t, fx, llm.OpenAI).Draft(t.Context(), audioRequest()); err != nil {
		t.Fatal(err)
	}
	var parts []map[string]any
	json.Unmarshal(fx.Next(t).Messages[0].Content, &parts)
	if len(parts) != 2 {
		t.Fatalf("parts %v", parts)
	}
	if wav := parts[0]; wav["type"] != "input_audio" || wav["input_audio"].(map[string]any)["format"] != "wav" || wav["input_audio"].(map[string]any)["data"] != "UklGRg==" {
		t.Errorf("WAV part %v", wav)
	}
	if ogg := parts[1]; ogg["type"] != "text" || !strings.Contains(ogg["text"].(string), "audio/ogg") {
		t.Errorf("an OGG, which chat completions does not take, became %v; want a note in words", ogg)
	}

	if _, err := drafter(t, fx, llm.Anthropic).Draft(t.Context(), audioRequest()); err != nil {
		t.Fatal(err)
	}
	if text := fx.Next(t).Messages[0].Text(); !strings.Contains(text, "audio/wav") || !strings.Contains(text, "audio/ogg") {
		t.Errorf("Messages takes no audio: want both sounds in words, got %q", text)
	}
}

func TestImagesGoOnlyToAModelThatTakesThem(t *testing.T) {
	fx := modelfixture.Start(t, modelfixture.Options{Decide: func(*modelfixture.Request) modelfixture.Reply { return modelfixture.Text("seen") }})
	r := newRegistry(t, []Spec{{Name: "text-only", Provider: llm.OpenAI, URL: fx.OpenAIURL(), Model: "m"}}, Options{})
	d, _ := r.Drafter("text-only")
	req := weatherRequest()
	req.Messages[2].Content[0].Content = append(req.Messages[2].Content[0].Content, wire.SamplingContent{Type: wire.ContentImage, MIMEType: "image/jpeg", Data: "/9j/"})
	if _, err := d.Draft(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	got := fx.Next(t)
	if strings.Contains(string(got.Body), "image_url") {
		t.Errorf("an image went to a model that takes none: %s", got.Body)
	}
	if !strings.Contains(got.Messages[1].Text(), "image of type image/png") || !strings.Contains(got.Messages[3].Text(), "image of type image/jpeg") {
		t.Errorf("the images are not said in words: %s", got.Body)
	}
}

func TestDrafterChoosesItsModel(t *testing.T) {
	gpt := Spec{Name: "gpt", Provider: llm.OpenAI, URL: "https://api.openai.com/v1", Model: "gpt-4o"}
	r := newRegistry(t, []Spec{DemoSpec(), gpt}, Options{})
	if d, err := r.Drafter(""); err != nil || d.Name() != "gpt" {
		t.Errorf("by default: %v, %v; want the first model that is not the demo", d, err)
	}
	for _, name := range []string{"demo", "other"} {
		if d, err := r.Drafter(name); err == nil {
			t.Errorf("Drafter(%s) = %v", name, d)
		}
	}
	if d, err := newRegistry(t, []Spec{DemoSpec()}, Options{}).Drafter(""); d != nil || err != nil {
		t.Errorf("with the demo alone: %v, %v; want none", d, err)
	}
}
