package modelfixture_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
)

// anEvent is what these tests read of an Anthropic event's data.
type anEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID, Type, Role, Model string
		Content               []any
		StopReason            *string `json:"stop_reason"`
		Usage                 struct {
			InputTokens int `json:"input_tokens"`
		}
	} `json:"message"`
	ContentBlock *struct {
		Type, ID, Name string
		Input          map[string]any
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *struct {
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct{ Type, Message string } `json:"error"`
}

// anStream is an Anthropic stream put back together.
type anStream struct {
	names                     []string
	thinking, signature, text string
	calls                     []modelfixture.ToolCall
	stop                      string
	input, output             int
	deltas, widest            int
	stopped                   bool // message_stop came last
	errType                   string
	open                      int      // the block started and not stopped, or -1
	starts                    []string // the type of each block started
}

// assembleAnthropic checks each event's name against its type and puts
// the stream together.
func assembleAnthropic(t *testing.T, events []sse) anStream {
	t.Helper()
	s := anStream{open: -1}
	for i, e := range events {
		s.names = append(s.names, e.Event)
		ev := decode[anEvent](t, e.Data)
		if ev.Type != e.Event {
			t.Errorf("event %d is %q with data of type %q", i, e.Event, ev.Type)
		}
		switch ev.Type {
		case "message_start":
			if m := ev.Message; m.ID == "" || m.Type != "message" || m.Role != "assistant" || m.Model != "m1" ||
				len(m.Content) != 0 || m.StopReason != nil {
				t.Errorf("message_start: %s", e.Data)
			} else {
				s.input = m.Usage.InputTokens
			}
		case "content_block_start":
			s.start(t, ev)
		case "content_block_delta":
			s.delta(t, ev)
		case "content_block_stop":
			if ev.Index != s.open {
				t.Errorf("block %d stops while %d is open", ev.Index, s.open)
			}
			s.open = -1
		case "message_delta":
			s.stop, s.output = ev.Delta.StopReason, ev.Usage.OutputTokens
		case "message_stop":
			s.stopped = i == len(events)-1
		case "error":
			s.errType = ev.Error.Type
		}
	}
	return s
}

func (s *anStream) start(t *testing.T, ev anEvent) {
	t.Helper()
	if s.open != -1 || ev.Index != len(s.starts) {
		t.Errorf("block %d starts while %d is open", ev.Index, s.open)
	}
	s.open = ev.Index
	if b := ev.ContentBlock; b.Type == "tool_use" {
		if b.ID == "" || b.Name == "" || b.Input == nil || len(b.Input) != 0 {
			t.Errorf("tool_use starts as %+v", b)
		}
		s.calls = append(s.calls, modelfixture.ToolCall{ID: b.ID, Name: b.Name})
	}
	s.starts = append(s.starts, ev.ContentBlock.Type)
}

func (s *anStream) delta(t *testing.T, ev anEvent) {
	t.Helper()
	if ev.Index != s.open {
		t.Errorf("a delta of block %d while %d is open", ev.Index, s.open)
	}
	d := ev.Delta
	piece := d.Text + d.Thinking + d.PartialJSON
	want := map[string]string{"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "thinking", "input_json_delta": "tool_use"}[d.Type]
	if want != s.starts[s.open] {
		t.Errorf("a %s in a %s block", d.Type, s.starts[s.open])
	}
	if d.Type != "signature_delta" {
		s.deltas++
		s.widest = max(s.widest, utf8.RuneCountInString(piece))
	}
	s.signature += d.Signature
	switch d.Type {
	case "text_delta":
		s.text += d.Text
	case "thinking_delta":
		s.thinking += d.Thinking
	case "input_json_delta":
		s.calls[len(s.calls)-1].Arguments += d.PartialJSON
	}
}

// expectedNames are the event names of a stream with blocks of the given
// delta counts; a thinking block also gets its signature_delta.
func expectedNames(thinking int, blocks ...int) []string {
	names := []string{"message_start"}
	block := func(n int) {
		names = append(names, "content_block_start")
		if len(names) == 2 {
			names = append(names, "ping")
		}
		for range n {
			names = append(names, "content_block_delta")
		}
		names = append(names, "content_block_stop")
	}
	if thinking > 0 {
		block(thinking + 1)
	}
	for _, n := range blocks {
		block(n)
	}
	return append(names, "message_delta", "message_stop")
}

func TestAnthropicStreamsEveryKindOfContent(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{richReply}})
	resp := ask(testCtx(t), t, m, modelfixture.Anthropic, true)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("got %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	s := assembleAnthropic(t, events)
	// 48 runes of reasoning, 35 of text, 32 and 23 of arguments, by 3.
	if want := expectedNames(16, 12, 11, 8); !slices.Equal(s.names, want) {
		t.Errorf("events\n%v\nwant\n%v", s.names, want)
	}
	if s.thinking != richReply.Reasoning || s.signature != modelfixture.ThinkingSignature || s.text != richReply.Text {
		t.Errorf("thinking %q (signature %q), text %q", s.thinking, s.signature, s.text)
	}
	if len(s.calls) != 2 || s.calls[0] != richReply.ToolCalls[0] || s.calls[1].Arguments != richReply.ToolCalls[1].Arguments {
		t.Errorf("tool calls %+v", s.calls)
	}
	if s.widest != 3 || s.stop != "tool_use" || s.input != 12 || s.output != 34 || !s.stopped || s.errType != "" {
		t.Errorf("widest delta %d, stop %q, usage %d/%d, stopped %v, error %q", s.widest, s.stop, s.input, s.output, s.stopped, s.errType)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	for stop, want := range map[modelfixture.Stop]string{"": "end_turn", modelfixture.StopMaxTokens: "max_tokens", "stop_sequence": "stop_sequence"} {
		m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{{Text: "x", Stop: stop}}})
		events, err := readSSE(ask(testCtx(t), t, m, modelfixture.Anthropic, true).Body)
		s := assembleAnthropic(t, events)
		if err != nil || s.stop != want || s.text != "x" || !slices.Equal(s.names, expectedNames(0, 1)) {
			t.Errorf("stop %q: got %q, text %q, events %v, %v", stop, s.stop, s.text, s.names, err)
		}
	}
}

func TestAnthropicAnswersWithoutStream(t *testing.T) {
	m := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{richReply}})
	var msg struct {
		ID, Type, Role, Model string
		Content               []struct {
			Type, Text, Thinking, Signature, ID, Name string
			Input                                     map[string]any
		}
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
		Usage        struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		}
	}
	resp := ask(testCtx(t), t, m, modelfixture.Anthropic, false)
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	c := msg.Content
	if msg.Type != "message" || msg.ID == "" || msg.Role != "assistant" || msg.Model != "m1" || msg.StopReason != "tool_use" ||
		msg.Usage.InputTokens != 12 || msg.Usage.OutputTokens != 34 || len(c) != 4 ||
		c[0].Type != "thinking" || c[0].Thinking != richReply.Reasoning || c[0].Signature != modelfixture.ThinkingSignature ||
		c[1].Type != "text" || c[1].Text != richReply.Text ||
		c[2].Type != "tool_use" || c[2].ID != "call_a" || c[2].Input["city"] != "Lyon" ||
		c[3].Name != "get_time" || c[3].Input["zone"] != "Europe/Paris" || c[3].ID == "" {
		t.Errorf("got %+v", msg)
	}
}
