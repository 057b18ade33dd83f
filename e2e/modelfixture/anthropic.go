package modelfixture

import (
	"encoding/json"
	"fmt"
)

// ThinkingSignature is the signature of the fixture's thinking blocks.
const ThinkingSignature = "fixture-thinking-signature"

// anMessage is Anthropic's message object.
type anMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        anUsage `json:"usage"`
}

type anUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Content blocks, as a content_block_start and in a message.
type (
	anText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	anThinking struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	anToolUse struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
)

// Deltas of a content_block_delta.
type (
	anThinkingDelta struct {
		Type     string `json:"type"`
		Thinking string `json:"thinking"`
	}
	anSignatureDelta struct {
		Type      string `json:"type"`
		Signature string `json:"signature"`
	}
	anJSONDelta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	}
)

// anBlockEvent is content_block_start, _delta or _stop.
type anBlockEvent struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block,omitempty"`
	Delta        any    `json:"delta,omitempty"`
}

// anMessageDelta is the message_delta event's data.
type anMessageDelta struct {
	Type  string        `json:"type"`
	Delta anStopDelta   `json:"delta"`
	Usage anOutputUsage `json:"usage"`
}

type anStopDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type anOutputUsage struct {
	OutputTokens int `json:"output_tokens"`
}

// anthropicStop is a stop reason as Anthropic's stop_reason.
func anthropicStop(s Stop) string {
	switch s {
	case StopEnd:
		return "end_turn"
	case StopToolUse:
		return "tool_use"
	case StopMaxTokens:
		return "max_tokens"
	}
	return string(s)
}

// anStream builds an Anthropic stream's events.
type anStream struct {
	pl     plan
	blocks int  // content blocks started
	pinged bool // a ping follows the first content_block_start
}

func (b *anStream) add(name string, data any, delta bool) {
	b.pl.events = append(b.pl.events, event{name: name, data: data, delta: delta})
}

// block adds a content block: its start, deltas made by delta, and stop.
func (b *anStream) block(start any, pieces []string, delta func(string) any, end func()) {
	i := b.blocks
	b.blocks++
	b.add("content_block_start", anBlockEvent{Type: "content_block_start", Index: i, ContentBlock: start}, false)
	if !b.pinged {
		b.add("ping", map[string]string{"type": "ping"}, false)
		b.pinged = true
	}
	for _, p := range pieces {
		b.add("content_block_delta", anBlockEvent{Type: "content_block_delta", Index: i, Delta: delta(p)}, true)
	}
	if end != nil {
		end()
	}
	b.add("content_block_stop", anBlockEvent{Type: "content_block_stop", Index: i}, false)
}

// anthropicPlan is a reply as an Anthropic stream: message_start, a
// thinking block (thinking_delta, then signature_delta), a text block
// (text_delta), a tool_use block per call (input_json_delta), each with
// content_block_start and _stop, a ping after the first start,
// message_delta with stop_reason and usage, and message_stop.
func anthropicPlan(req *Request, reply Reply) plan {
	var b anStream
	start := anthropicMessage(req, Reply{Usage: Usage{Input: reply.Usage.Input, Output: min(1, reply.Usage.Output)}})
	start.Content, start.StopReason = []any{}, nil
	b.add("message_start", struct {
		Type    string    `json:"type"`
		Message anMessage `json:"message"`
	}{"message_start", start}, false)
	if reply.Reasoning != "" {
		b.block(anThinking{Type: "thinking"}, reply.chunks(reply.Reasoning),
			func(s string) any { return anThinkingDelta{Type: "thinking_delta", Thinking: s} },
			func() {
				sig := anSignatureDelta{Type: "signature_delta", Signature: ThinkingSignature}
				b.add("content_block_delta", anBlockEvent{Type: "content_block_delta", Index: b.blocks - 1, Delta: sig}, false)
			})
	}
	text := b.blocks
	if reply.Text != "" || reply.Endless > 0 {
		b.block(anText{Type: "text"}, reply.chunks(reply.Text),
			func(s string) any { return anText{Type: "text_delta", Text: s} },
			func() { b.pl.endlessAt = len(b.pl.events) })
	}
	for i, c := range reply.ToolCalls {
		b.block(anToolUse{Type: "tool_use", ID: callID(req, i, c), Name: c.Name, Input: json.RawMessage("{}")},
			reply.chunks(c.arguments()),
			func(s string) any { return anJSONDelta{Type: "input_json_delta", PartialJSON: s} }, nil)
	}
	b.pl.tail = len(b.pl.events)
	b.add("message_delta", anMessageDelta{Type: "message_delta", Delta: anStopDelta{StopReason: anthropicStop(reply.stop())},
		Usage: anOutputUsage{OutputTokens: reply.Usage.Output}}, false)
	b.add("message_stop", map[string]string{"type": "message_stop"}, false)
	b.pl.token = func() event {
		return event{name: "content_block_delta", data: anBlockEvent{Type: "content_block_delta", Index: text,
			Delta: anText{Type: "text_delta", Text: EndlessToken}}, delta: true}
	}
	b.pl.failure = func(f Fail) event {
		e := newAnthropicError(statusOverloaded, "", "")
		e.Error.Type, e.Error.Message = failDefaults(Anthropic, f)
		return event{name: "error", data: e}
	}
	return b.pl
}

// anthropicMessage is a reply as one message object.
func anthropicMessage(req *Request, reply Reply) anMessage {
	var content []any
	if reply.Reasoning != "" {
		content = append(content, anThinking{Type: "thinking", Thinking: reply.Reasoning, Signature: ThinkingSignature})
	}
	if reply.Text != "" || (reply.Reasoning == "" && len(reply.ToolCalls) == 0) {
		content = append(content, anText{Type: "text", Text: reply.Text})
	}
	for i, c := range reply.ToolCalls {
		input := json.RawMessage(c.arguments())
		if !json.Valid(input) {
			input, _ = json.Marshal(c.arguments()) // a client test may want bad input; keep the body valid JSON
		}
		content = append(content, anToolUse{Type: "tool_use", ID: callID(req, i, c), Name: c.Name, Input: input})
	}
	stop := anthropicStop(reply.stop())
	return anMessage{ID: fmt.Sprintf("msg_fixture_%d", req.N), Type: "message", Role: "assistant", Model: modelOf(req),
		Content: content, StopReason: &stop, Usage: anUsage{InputTokens: reply.Usage.Input, OutputTokens: reply.Usage.Output}}
}
