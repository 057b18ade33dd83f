package llm

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestAnthropicRequestMapsEveryField(t *testing.T) {
	e := newEndpoint(t, reply{body: []string{named("message_stop", `{"type":"message_stop"}`)}})
	if _, err := events(t, newClient(t, Anthropic, e), weatherRequest()); err != nil {
		t.Fatal(err)
	}
	got := <-e.got
	if got.path != "/v1/messages" {
		t.Errorf("request to %s", got.path)
	}
	h := got.header
	if h.Get("x-api-key") != testKey || h.Get("anthropic-version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Errorf("headers %v", h)
	}
	b := got.body
	for field, want := range map[string]string{
		"model":          `"test-model"`,
		"max_tokens":     `300`,
		"system":         `"You are terse."`,
		"temperature":    `0.5`,
		"stop_sequences": `["END"]`,
		"stream":         `true`,
		"tool_choice":    `{"name":"get_weather","type":"tool"}`,
		"tools": `[{"description":"Weather of a city.","input_schema":{"properties":{"city":{"type":"string"}},` +
			`"required":["city"],"type":"object"},"name":"get_weather"}]`,
	} {
		if g := asJSON(b[field]); g != want {
			t.Errorf("%s = %s, want %s", field, g, want)
		}
	}
	want := []string{
		`{"content":[{"text":"Weather here and in Lyon?","type":"text"},` +
			`{"source":{"data":"cG5nIQ==","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"}`,
		`{"content":[{"signature":"sig","thinking":"Need two cities.","type":"thinking"},{"text":"Let me look.","type":"text"},` +
			`{"id":"call_1","input":{"city":"Paris"},"name":"get_weather","type":"tool_use"},` +
			`{"id":"call_2","input":{},"name":"get_weather","type":"tool_use"}],"role":"assistant"}`,
		`{"content":[{"content":[{"text":"18°C, cloudy","type":"text"},{"source":{"data":"c2t5","media_type":"image/png","type":"base64"},"type":"image"}],` +
			`"tool_use_id":"call_1","type":"tool_result"},` +
			`{"content":[{"text":"timed out","type":"text"}],"is_error":true,"tool_use_id":"call_2","type":"tool_result"},` +
			`{"text":"Here are the results.","type":"text"}],"role":"user"}`,
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

func TestAnthropicDefaultsAndToolChoiceModes(t *testing.T) {
	for mode, want := range map[ToolMode]string{"": "null", ToolAuto: `{"type":"auto"}`, ToolNone: `{"type":"none"}`, ToolRequired: `{"type":"any"}`} {
		e := newEndpoint(t, reply{body: []string{named("message_stop", `{"type":"message_stop"}`)}})
		req := hello()
		req.Tools = []Tool{{Name: "t"}}
		req.ToolChoice = ToolChoice{Mode: mode}
		if _, err := events(t, newClient(t, Anthropic, e), req); err != nil {
			t.Fatal(err)
		}
		b := (<-e.got).body
		if g := asJSON(b["tool_choice"]); g != want {
			t.Errorf("mode %q: tool_choice %s, want %s", mode, g, want)
		}
		if b["max_tokens"] != float64(DefaultMaxTokens) || b["system"] != nil || b["temperature"] != nil || b["stop_sequences"] != nil {
			t.Errorf("defaults %v", b)
		}
		if g := asJSON(at(b, "tools", 0, "input_schema")); g != `{"type":"object"}` {
			t.Errorf("a tool without a schema has input_schema %s", g)
		}
	}
}

// anthropicTranscript is a streamed Messages answer as the API sends it:
// signed thinking, text split over deltas, two tool calls whose JSON
// arguments are split, pings, and usage at the start and in message_delta.
func anthropicTranscript() []string {
	delta := func(i, d string) string {
		return named("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":`+d+`}`)
	}
	start := func(i, b string) string {
		return named("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":`+b+`}`)
	}
	stop := func(i string) string {
		return named("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
	}
	return []string{
		named("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],`+
			`"model":"claude-test-4","stop_reason":null,"stop_sequence":null,`+
			`"usage":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":10,"output_tokens":2}}}`),
		start("0", `{"type":"thinking","thinking":"","signature":""}`),
		named("ping", `{"type": "ping"}`),
		delta("0", `{"type":"thinking_delta","thinking":"Two cities,"}`),
		delta("0", `{"type":"thinking_delta","thinking":" two calls."}`),
		delta("0", `{"type":"signature_delta","signature":"EqQBCgIYAhIM"}`),
		stop("0"),
		start("1", `{"type":"text","text":""}`),
		delta("1", `{"type":"text_delta","text":"Checking"}`),
		delta("1", `{"type":"text_delta","text":" both cities."}`),
		stop("1"),
		start("2", `{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}`),
		delta("2", `{"type":"input_json_delta","partial_json":""}`),
		delta("2", `{"type":"input_json_delta","partial_json":"{\"city\": "}`),
		delta("2", `{"type":"input_json_delta","partial_json":"\"Paris\"}"}`),
		stop("2"),
		start("3", `{"type":"tool_use","id":"toolu_b","name":"get_weather","input":{}}`),
		delta("3", `{"type":"input_json_delta","partial_json":"{\"city\":"}`),
		delta("3", `{"type":"input_json_delta","partial_json":"\"Lyon\"}"}`),
		stop("3"),
		named("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`),
		named("message_stop", `{"type":"message_stop"}`),
	}
}

func TestAnthropicStreamEvents(t *testing.T) {
	e := newEndpoint(t, reply{body: anthropicTranscript()})
	got, err := events(t, newClient(t, Anthropic, e), weatherRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Type: EventReasoning, Text: "Two cities,"},
		{Type: EventReasoning, Text: " two calls."},
		{Type: EventReasoning, Signature: "EqQBCgIYAhIM"},
		{Type: EventText, Text: "Checking"},
		{Type: EventText, Text: " both cities."},
		{Type: EventToolCall, Index: 2, ID: "toolu_a", Name: "get_weather"},
		{Type: EventToolArgs, Index: 2, Text: `{"city": `},
		{Type: EventToolArgs, Index: 2, Text: `"Paris"}`},
		{Type: EventToolCall, Index: 3, ID: "toolu_b", Name: "get_weather"},
		{Type: EventToolArgs, Index: 3, Text: `{"city":`},
		{Type: EventToolArgs, Index: 3, Text: `"Lyon"}`},
		{Type: EventUsage, Usage: Usage{InputTokens: 482, OutputTokens: 89}},
		{Type: EventEnd, StopReason: StopToolUse, Model: "claude-test-4"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n got %+v\nwant %+v", got, want)
	}
}

func TestAnthropicCollect(t *testing.T) {
	e := newEndpoint(t, reply{body: anthropicTranscript()})
	res, err := Collect(newClient(t, Anthropic, e).Stream(t.Context(), weatherRequest()))
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopToolUse || res.Model != "claude-test-4" || res.Usage != (Usage{482, 89}) {
		t.Errorf("response %+v", res)
	}
	want := `[{"Signature":"EqQBCgIYAhIM","Text":"Two cities, two calls.","Type":"reasoning"},{"Text":"Checking both cities.","Type":"text"},` +
		`{"Arguments":{"city":"Paris"},"ID":"toolu_a","Name":"get_weather","Type":"tool_call"},` +
		`{"Arguments":{"city":"Lyon"},"ID":"toolu_b","Name":"get_weather","Type":"tool_call"}]`
	if g := partsJSON(res.Message.Parts); g != want {
		t.Errorf("parts\n got %s\nwant %s", g, want)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	for stop, want := range map[string]StopReason{"end_turn": StopEndTurn, "max_tokens": StopMaxTokens, "stop_sequence": StopSequence,
		"refusal": StopRefusal, "model_context_window_exceeded": StopMaxTokens, "pause_turn": StopEndTurn} {
		e := newEndpoint(t, reply{body: []string{
			named("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`"},"usage":{"output_tokens":3}}`),
			named("message_stop", `{"type":"message_stop"}`),
		}})
		res, err := Collect(newClient(t, Anthropic, e).Stream(t.Context(), hello()))
		if err != nil || res.StopReason != want {
			t.Errorf("stop_reason %q: %v, %v; want %s", stop, res.StopReason, err, want)
		}
	}
}

func TestAnthropicErrorEventMidStream(t *testing.T) {
	e := newEndpoint(t, reply{body: []string{
		named("message_start", `{"type":"message_start","message":{"model":"claude-test-4","usage":{"input_tokens":5}}}`),
		named("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	}})
	_, err := events(t, newClient(t, Anthropic, e), hello())
	var le *Error
	if !errors.As(err, &le) || le.Status != 529 || !strings.Contains(le.Message, "overloaded_error: Overloaded") {
		t.Errorf("error %#v, want a 529 saying overloaded", err)
	}
}

func TestAnthropicStreamCutBeforeMessageStop(t *testing.T) {
	e := newEndpoint(t, reply{body: anthropicTranscript()[:9]})
	got, err := events(t, newClient(t, Anthropic, e), hello())
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "broke off") || le.Status != 0 {
		t.Errorf("error %v, want one saying the answer broke off", err)
	}
	if len(got) != 4 {
		t.Errorf("%d events before the break, want 4: %+v", len(got), got)
	}
}

func TestAnthropicRefusesAudio(t *testing.T) {
	e := newEndpoint(t, reply{})
	req := &Request{Messages: []Message{{Role: User, Parts: []Part{AudioPart("audio/wav", []byte("RIFF"))}}}}
	_, err := events(t, newClient(t, Anthropic, e), req)
	var le *Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "takes no audio") {
		t.Errorf("error %v, want a refusal of audio", err)
	}
}
