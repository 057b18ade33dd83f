package model

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const testKey = "sk-test-secret-0123456789"

// endpoint is an OpenAI-compatible test endpoint: it records the request it
// got and answers with reply.
type endpoint struct {
	*httptest.Server
	got    chan recorded
	status int
	reply  string
}

type recorded struct {
	path, auth string
	body       map[string]any
}

func newEndpoint(t *testing.T, status int, reply string) *endpoint {
	t.Helper()
	e := &endpoint{got: make(chan recorded, 1), status: status, reply: reply}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("the request is not JSON: %v", err)
		}
		e.got <- recorded{path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.status)
		io.WriteString(w, e.reply)
	}))
	t.Cleanup(e.Close)
	return e
}

func newClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := New(Config{URL: url + "/v1", Name: "gpt-test", Key: testKey, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)})
	if err != nil {
		t.Fatal(err)
	}
	return c
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

func TestDraftMapsMessagesImagesAndTools(t *testing.T) {
	e := newEndpoint(t, http.StatusOK, `{"model":"gpt-test-2025","choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
		"tool_calls":[{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Lyon\"}"}}]}}]}`)
	res, err := newClient(t, e.URL).Draft(context.Background(), weatherRequest())
	if err != nil {
		t.Fatal(err)
	}
	got := <-e.got
	if got.path != "/v1/chat/completions" || got.auth != "Bearer "+testKey {
		t.Errorf("request to %s with auth %q", got.path, got.auth)
	}
	b := got.body
	if b["model"] != "gpt-test" || b["max_tokens"] != 300.0 || b["temperature"] != 0.5 || b["tool_choice"] != "auto" {
		t.Errorf("request parameters %v", b)
	}
	if stop, _ := b["stop"].([]any); len(stop) != 1 || stop[0] != "END" {
		t.Errorf("stop %v", b["stop"])
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want system, user, assistant, tool: %v", len(msgs), msgs)
	}
	role := func(i int) string { return msgs[i].(map[string]any)["role"].(string) }
	if role(0) != "system" || msgs[0].(map[string]any)["content"] != "You are terse." {
		t.Errorf("first message %v", msgs[0])
	}
	parts, _ := msgs[1].(map[string]any)["content"].([]any)
	if role(1) != "user" || len(parts) != 2 {
		t.Fatalf("user message %v", msgs[1])
	}
	img := parts[1].(map[string]any)
	if img["type"] != "image_url" || img["image_url"].(map[string]any)["url"] != "data:image/png;base64,iVBORw0KGgo=" {
		t.Errorf("image part %v", img)
	}
	calls, _ := msgs[2].(map[string]any)["tool_calls"].([]any)
	if role(2) != "assistant" || len(calls) != 1 {
		t.Fatalf("assistant message %v", msgs[2])
	}
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	if calls[0].(map[string]any)["id"] != "call_1" || fn["name"] != "get_weather" || fn["arguments"] != `{"city":"Paris"}` {
		t.Errorf("tool call %v", calls[0])
	}
	tool := msgs[3].(map[string]any)
	if role(3) != "tool" || tool["tool_call_id"] != "call_1" || tool["content"] != "18°C, cloudy" {
		t.Errorf("tool message %v", tool)
	}
	tools, _ := b["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools %v", b["tools"])
	}
	f := tools[0].(map[string]any)["function"].(map[string]any)
	if f["name"] != "get_weather" || f["parameters"].(map[string]any)["required"].([]any)[0] != "city" {
		t.Errorf("tool %v", f)
	}

	if res.Model != "gpt-test-2025" || res.StopReason != wire.StopToolUse || len(res.Content) != 1 {
		t.Fatalf("result %+v", res)
	}
	if c := res.Content[0]; c.Type != wire.ContentToolUse || c.ID != "call_2" || c.Name != "get_weather" || string(c.Input) != `{"city":"Lyon"}` {
		t.Errorf("tool_use %+v", c)
	}
}

func TestDraftReturnsText(t *testing.T) {
	e := newEndpoint(t, http.StatusOK, `{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"Hello there."}}]}`)
	res, err := newClient(t, e.URL).Draft(context.Background(), &wire.SamplingRequest{MaxTokens: 10,
		Messages: []wire.SamplingMessage{{Role: wire.RoleUser, Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "Hi"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-e.got; got.body["tools"] != nil || got.body["tool_choice"] != nil {
		t.Errorf("tools sent without any offered: %v", got.body)
	}
	if res.Model != "gpt-test" || res.StopReason != wire.StopEndTurn || len(res.Content) != 1 || res.Content[0].Text != "Hello there." {
		t.Errorf("result %+v", res)
	}
}

func TestDraftErrorsNeverCarryTheKey(t *testing.T) {
	e := newEndpoint(t, http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`)
	_, err := newClient(t, e.URL).Draft(context.Background(), weatherRequest())
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeUpstream {
		t.Fatalf("error %v, want an upstream wire error", err)
	}
	if strings.Contains(we.Message, testKey) || !strings.Contains(we.Message, "401") {
		t.Errorf("error message %q: must say 401 and never hold the key", we.Message)
	}
}

func TestDraftRefusesBadToolArguments(t *testing.T) {
	e := newEndpoint(t, http.StatusOK, `{"choices":[{"finish_reason":"tool_calls","message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"get_weather","arguments":"[1,2]"}}]}}]}`)
	if _, err := newClient(t, e.URL).Draft(context.Background(), weatherRequest()); err == nil {
		t.Error("tool call arguments that are not an object were accepted")
	}
}

func TestNewNeedsURLAndName(t *testing.T) {
	for _, cfg := range []Config{{Name: "m"}, {URL: "https://x.example/v1"}, {URL: "ftp://x.example", Name: "m"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestAudioIsPassedWhereChatCompletionsTakesIt(t *testing.T) {
	e := newEndpoint(t, http.StatusOK, `{"choices":[{"finish_reason":"stop","message":{"content":"heard"}}]}`)
	req := &wire.SamplingRequest{MaxTokens: 5, Messages: []wire.SamplingMessage{{Role: wire.RoleUser, Content: []wire.SamplingContent{
		{Type: wire.ContentAudio, MIMEType: "audio/wav", Data: "UklGRg=="},
		{Type: wire.ContentAudio, MIMEType: "audio/ogg", Data: "T2dnUw=="},
	}}}}
	if _, err := newClient(t, e.URL).Draft(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	parts := (<-e.got).body["messages"].([]any)[0].(map[string]any)["content"].([]any)
	wav := parts[0].(map[string]any)
	if wav["type"] != "input_audio" || wav["input_audio"].(map[string]any)["format"] != "wav" || wav["input_audio"].(map[string]any)["data"] != "UklGRg==" {
		t.Errorf("WAV part %v", wav)
	}
	if ogg := parts[1].(map[string]any); ogg["type"] != "text" || !strings.Contains(ogg["text"].(string), "audio/ogg") {
		t.Errorf("an OGG, which chat completions does not take, became %v; want a note in words", ogg)
	}
}

// An endpoint's error cut at its cap must not keep the start of a key the
// cut split: the key is removed before the message is shortened.
func TestDraftErrorsNeverCarryAPartOfTheKey(t *testing.T) {
	pad := strings.Repeat("x", maxErrorBodyRunes-20)
	e := newEndpoint(t, http.StatusUnauthorized, `{"error":{"message":"`+pad+` key `+testKey+`"}}`)
	_, err := newClient(t, e.URL).Draft(context.Background(), weatherRequest())
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("error %v, want a wire error", err)
	}
	if strings.Contains(we.Message, testKey[:8]) {
		t.Errorf("error message %q holds the start of the key", we.Message)
	}
}

// The key is a bearer token: it goes over plain http only to a loopback
// address, where it never crosses a network.
func TestNewRefusesAKeyOverPlainHTTP(t *testing.T) {
	for url, ok := range map[string]bool{
		"http://models.example/v1":  false,
		"http://10.0.0.7:8000/v1":   false,
		"https://models.example/v1": true,
		"http://127.0.0.1:8000/v1":  true,
		"http://localhost:11434/v1": true,
		"http://[::1]:8000/v1":      true,
	} {
		_, err := New(Config{URL: url, Name: "m", Key: testKey})
		if (err == nil) != ok {
			t.Errorf("New(%s) with a key: %v, want ok=%v", url, err, ok)
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("the error holds the key: %v", err)
		}
	}
	if _, err := New(Config{URL: "http://models.example/v1", Name: "m"}); err != nil {
		t.Errorf("no key over plain http: %v", err)
	}
}
