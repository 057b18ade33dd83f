package llm

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestOpenAIRequestMapsEveryField(t *testing.T) {
	e := newEndpoint(t, reply{body: sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]")})
	req := weatherRequest()
	req.Messages[0].Parts = append(req.Messages[0].Parts, AudioPart("audio/wav", []byte("RIFF")))
	if _, err := events(t, newClient(t, OpenAI, e), req); err != nil {
		t.Fatal(err)
	}
	got := <-e.got
	if got.path != "/chat/completions" {
		t.Errorf("request to %s", got.path)
	}
	if a := got.header.Get("Authorization"); a != "Bearer "+testKey {
		t.Errorf("Authorization %q", a)
	}
	if got.header.Get("x-api-key") != "" || got.header.Get("Accept") != "text/event-stream" {
		t.Errorf("headers %v", got.header)
	}
	b := got.body
	for field, want := range map[string]string{
		"model":          `"test-model"`,
		"max_tokens":     `300`,
		"temperature":    `0.5`,
		"stop":           `["END"]`,
		"stream":         `true`,
		"stream_options": `{"include_usage":true}`,
		"tool_choice":    `{"function":{"name":"get_weather"},"type":"function"}`,
		"tools": `[{"function":{"description":"Weather of a city.","name":"get_weather",` +
			`"parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"type":"function"}]`,
	} {
		if g := asJSON(b[field]); g != want {
			t.Errorf("%s = %s, want %s", field, g, want)
		}
	}
	want := []string{
		`{"content":"You are terse.","role":"system"}`,
		`{"content":[{"text":"Weather here and in Lyon?","type":"text"},{"image_url":{"url":"data:image/png;base64,cG5nIQ=="},"type":"image_url"},` +
			`{"input_audio":{"data":"UklGRg==","format":"wav"},"type":"input_audio"}],"role":"user"}`,
		`{"content":"Let me look.","role":"assistant","tool_calls":[` +
			`{"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"call_1","type":"function"},` +
			`{"function":{"arguments":"{}","name":"get_weather"},"id":"call_2","type":"function"}]}`,
		`{"content":"18°C, cloudy","role":"tool","tool_call_id":"call_1"}`,
		`{"content":"[the tool reported an error]\n\ntimed out","role":"tool","tool_call_id":"call_2"}`,
		`{"content":[{"text":"Here are the results.","type":"text"},{"text":"Images in the result of tool call call_1:","type":"text"},` +
			`{"image_url":{"url":"data:image/png;base64,c2t5"},"type":"image_url"}],"role":"user"}`,
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d: %s", len(msgs), len(want), asJSON(msgs))
	}
	for i, w := range want {
		if g := asJSON(msgs[i]); g != w {
			t.Errorf("message %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

func TestOpenAIToolChoiceModes(t *testing.T) {
	for mode, want := range map[ToolMode]string{"": "null", ToolAuto: `"auto"`, ToolNone: `"none"`, ToolRequired: `"required"`} {
		e := newEndpoint(t, reply{body: sse(`{"choices":[]}`, "[DONE]")})
		req := hello()
		req.Tools = []Tool{{Name: "t"}}
		req.ToolChoice = ToolChoice{Mode: mode}
		if _, err := events(t, newClient(t, OpenAI, e), req); err != nil {
			t.Fatal(err)
		}
		b := (<-e.got).body
		if g := asJSON(b["tool_choice"]); g != want {
			t.Errorf("mode %q: tool_choice %s, want %s", mode, g, want)
		}
		if g := asJSON(at(b, "tools", 0, "function", "parameters")); g != `{"type":"object"}` {
			t.Errorf("a tool without a schema has parameters %s", g)
		}
	}
}

func TestOpenAIRequestWithoutToolsOrLimits(t *testing.T) {
	e := newEndpoint(t, reply{body: sse("[DONE]")})
	req := hello()
	req.ToolChoice = ToolChoice{Mode: ToolRequired}
	if _, err := events(t, newClient(t, OpenAI, e), req); err != nil {
		t.Fatal(err)
	}
	b := (<-e.got).body
	for _, f := range []string{"tools", "tool_choice", "max_tokens", "temperature", "stop"} {
		if _, ok := b[f]; ok {
			t.Errorf("%s sent: %v", f, b[f])
		}
	}
	if g := asJSON(b["messages"]); g != `[{"content":[{"text":"Hello","type":"text"}],"role":"user"}]` {
		t.Errorf("messages %s", g)
	}
}

// openAITranscript streams reasoning, text split over chunks, and two
// parallel tool calls whose arguments are split and interleaved; one
// chunk is split across writes mid-line.
func openAITranscript() []string {
	const head = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test-2025","choices":[{"index":0,"delta":`
	const tail = `,"logprobs":null,"finish_reason":null}],"usage":null}`
	chunk := func(delta string) string { return head + delta + tail }
	body := sse(
		chunk(`{"role":"assistant","content":"","refusal":null}`),
		chunk(`{"reasoning_content":"The user wants"}`),
		chunk(`{"reasoning":" weather."}`),
		chunk(`{"content":"Checking"}`),
		chunk(`{"content":" both cities."}`),
		chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}`),
		chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}`),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"Lyon\"}"}}]}`),
		head+`{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test-2025","choices":[],"usage":{"prompt_tokens":82,"completion_tokens":41,"total_tokens":123}}`,
		"[DONE]",
	)
	split := body[3]
	return slices.Concat(body[:3], []string{split[:20], split[20:]}, body[4:])
}

func TestOpenAIStreamEvents(t *testing.T) {
	e := newEndpoint(t, reply{body: openAITranscript()})
	got, err := events(t, newClient(t, OpenAI, e), weatherRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Type: EventReasoning, Text: "The user wants"},
		{Type: EventReasoning, Text: " weather."},
		{Type: EventText, Text: "Checking"},
		{Type: EventText, Text: " both cities."},
		{Type: EventToolCall, Index: 0, ID: "call_a", Name: "get_weather"},
		{Type: EventToolArgs, Index: 0, Text: `{"ci`},
		{Type: EventToolCall, Index: 1, ID: "call_b", Name: "get_weather"},
		{Type: EventToolArgs, Index: 1, Text: `{"city":`},
		{Type: EventToolArgs, Index: 0, Text: `ty":"Paris"}`},
		{Type: EventToolArgs, Index: 1, Text: `"Lyon"}`},
		{Type: EventUsage, Usage: Usage{InputTokens: 82, OutputTokens: 41}},
		{Type: EventEnd, StopReason: StopToolUse, Model: "gpt-test-2025"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n got %+v\nwant %+v", got, want)
	}
}

func TestOpenAICollect(t *testing.T) {
	e := newEndpoint(t, reply{body: openAITranscript()})
	res, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), weatherRequest()))
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopToolUse || res.Model != "gpt-test-2025" || res.Usage != (Usage{82, 41}) || res.Message.Role != Assistant {
		t.Errorf("response %+v", res)
	}
	want := `[{"Text":"The user wants weather.","Type":"reasoning"},{"Text":"Checking both cities.","Type":"text"},` +
		`{"Arguments":{"city":"Paris"},"ID":"call_a","Name":"get_weather","Type":"tool_call"},` +
		`{"Arguments":{"city":"Lyon"},"ID":"call_b","Name":"get_weather","Type":"tool_call"}]`
	if g := partsJSON(res.Message.Parts); g != want {
		t.Errorf("parts\n got %s\nwant %s", g, want)
	}
}

func TestOpenAIStopReasons(t *testing.T) {
	for finish, want := range map[string]StopReason{"stop": StopEndTurn, "length": StopMaxTokens, "content_filter": StopRefusal, "": StopEndTurn} {
		e := newEndpoint(t, reply{body: sse(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":`+asJSON(finish)+`}]}`, "[DONE]")})
		res, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), hello()))
		if err != nil || res.StopReason != want {
			t.Errorf("finish_reason %q: %v, %v; want %s", finish, res.StopReason, err, want)
		}
	}
}

// Some servers say "stop" after tool calls: the answer still waits for
// their results.
func TestOpenAIToolCallsWithFinishStop(t *testing.T) {
	e := newEndpoint(t, reply{body: sse(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}]}`, "[DONE]")})
	res, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), hello()))
	if err != nil || res.StopReason != StopToolUse || len(res.Message.Parts) != 1 || res.Message.Parts[0].ToolCall.ID != "c1" {
		t.Errorf("response %+v, %v", res, err)
	}
}

func TestOpenAIErrorChunkMidStream(t *testing.T) {
	e := newEndpoint(t, reply{body: sse(`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
		`{"error":{"object":"error","message":"The engine is overloaded for key `+testKey+`","type":"server_error","code":503}}`)})
	got, err := events(t, newClient(t, OpenAI, e), hello())
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want *Error", err)
	}
	if len(got) != 1 || le.Status != 503 || !strings.Contains(le.Message, "overloaded") || hasKey(le.Message) {
		t.Errorf("events %v, error %+v", got, le)
	}
}

func TestOpenAIStreamCutBeforeDone(t *testing.T) {
	e := newEndpoint(t, reply{body: sse(`{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":"stop"}]}`)})
	_, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), hello()))
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "broke off") {
		t.Errorf("error %v, want one saying the answer broke off", err)
	}
}

func TestOpenAIRefusesAudioItCannotTake(t *testing.T) {
	e := newEndpoint(t, reply{body: sse("[DONE]")})
	req := &Request{Messages: []Message{{Role: User, Parts: []Part{AudioPart("audio/ogg", []byte("OggS"))}}}}
	_, err := events(t, newClient(t, OpenAI, e), req)
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "WAV and MP3") {
		t.Errorf("error %v, want a refusal naming WAV and MP3", err)
	}
	select {
	case <-e.got:
		t.Error("the request was sent")
	default:
	}
}

func TestTakesAudio(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		mime string
		want bool
	}{
		{OpenAI, "audio/wav", true}, {OpenAI, "audio/mpeg", true}, {OpenAI, "audio/ogg", false},
		{Anthropic, "audio/wav", false}, {Anthropic, "audio/mpeg", false},
	} {
		if got := c.kind.TakesAudio(c.mime); got != c.want {
			t.Errorf("%s takes %s: %v, want %v", c.kind, c.mime, got, c.want)
		}
	}
}
