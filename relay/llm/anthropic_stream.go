package llm

import (
	"encoding/json"
	"errors"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// anEvent is one event of a streamed Messages answer; its type says which
// fields it has.
type anEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Model string  `json:"model"`
		Usage anUsage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type string `json:"type"` // text, tool_use, thinking, …
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"` // text_delta, input_json_delta, thinking_delta, signature_delta
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"` // in message_delta
	} `json:"delta"`
	Usage *anUsage       `json:"usage"`
	Error *providerError `json:"error"`
}

type anUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// input is all the prompt's tokens, cached or not.
func (u anUsage) input() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// anthropicDecoder reads a streamed Messages answer, which ends with
// message_stop.
type anthropicDecoder struct {
	model  string
	usage  Usage
	stop   string
	blocks map[int]string // the type of each content block begun
	calls  bool
}

func (d *anthropicDecoder) decode(ev sseEvent) ([]Event, bool, error) {
	var e anEvent
	if err := json.Unmarshal(ev.data, &e); err != nil {
		return nil, false, errors.New("an event of the model's answer is not a Messages event")
	}
	switch e.Type {
	case "message_start":
		if e.Message.Model != "" {
			d.model = wire.Sanitize(e.Message.Model, maxModelRunes)
		}
		d.usage = Usage{InputTokens: e.Message.Usage.input(), OutputTokens: e.Message.Usage.OutputTokens}
	case "content_block_start":
		return d.blockStart(e)
	case "content_block_delta":
		return d.blockDelta(e)
	case "message_delta":
		d.stop = e.Delta.StopReason
		if u := e.Usage; u != nil {
			d.usage.OutputTokens = u.OutputTokens
			if in := u.input(); in > 0 {
				d.usage.InputTokens = in
			}
		}
		return []Event{{Type: EventUsage, Usage: d.usage}}, false, nil
	case "message_stop":
		return []Event{{Type: EventEnd, StopReason: d.stopReason(), Model: d.model}}, true, nil
	case "error":
		if e.Error == nil {
			return nil, false, errors.New("the model endpoint reported an error")
		}
		return nil, false, &Error{Status: e.Error.status(), Message: "the model endpoint reported an error: " + e.Error.Type + ": " + e.Error.Message}
	}
	return nil, false, nil // ping, content_block_stop, and types to come
}

func (d *anthropicDecoder) blockStart(e anEvent) ([]Event, bool, error) {
	d.blocks[e.Index] = e.ContentBlock.Type
	if e.ContentBlock.Type != "tool_use" {
		return nil, false, nil
	}
	if e.ContentBlock.Name == "" || e.ContentBlock.ID == "" {
		return nil, false, errors.New("the model began a tool call without an id or a name")
	}
	d.calls = true
	return []Event{{Type: EventToolCall, Index: e.Index, ID: e.ContentBlock.ID, Name: e.ContentBlock.Name}}, false, nil
}

func (d *anthropicDecoder) blockDelta(e anEvent) ([]Event, bool, error) {
	switch e.Delta.Type {
	case "text_delta":
		return []Event{{Type: EventText, Text: e.Delta.Text}}, false, nil
	case "thinking_delta":
		return []Event{{Type: EventReasoning, Text: e.Delta.Thinking}}, false, nil
	case "signature_delta":
		return []Event{{Type: EventReasoning, Signature: e.Delta.Signature}}, false, nil
	case "input_json_delta":
		if d.blocks[e.Index] != "tool_use" {
			return nil, false, errors.New("the model sent tool arguments outside a tool call")
		}
		if e.Delta.PartialJSON == "" {
			return nil, false, nil
		}
		return []Event{{Type: EventToolArgs, Index: e.Index, Text: e.Delta.PartialJSON}}, false, nil
	}
	return nil, false, nil
}

// stopReason maps stop_reason to the neutral set.
func (d *anthropicDecoder) stopReason() StopReason {
	switch d.stop {
	case "end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal":
		return StopReason(d.stop)
	case "model_context_window_exceeded":
		return StopMaxTokens
	}
	if d.calls {
		return StopToolUse
	}
	return StopEndTurn
}
