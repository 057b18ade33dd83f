package llm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxModelRunes caps the model name an endpoint reports.
const maxModelRunes = 200

// oaChunk is one chunk of a streamed chat completion, or an error.
type oaChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content          string            `json:"content"`
			ReasoningContent string            `json:"reasoning_content"`
			Reasoning        string            `json:"reasoning"`
			ToolCalls        []oaToolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *providerError `json:"error"`
}

// oaToolCallDelta is a piece of a tool call: the first of a call has its
// id and name, the others more of its arguments.
type oaToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openAIDecoder reads the chunks of a streamed chat completion, which ends
// with "data: [DONE]" (after the usage chunk that include_usage asks for).
type openAIDecoder struct {
	model  string
	finish string
	calls  map[int]bool // the indexes of the calls begun
}

func (d *openAIDecoder) decode(ev sseEvent) ([]Event, bool, error) {
	if string(ev.data) == "[DONE]" {
		return []Event{{Type: EventEnd, StopReason: d.stopReason(), Model: d.model}}, true, nil
	}
	var ch oaChunk
	if err := json.Unmarshal(ev.data, &ch); err != nil {
		return nil, false, errors.New("an event of the model's answer is not a chat-completions chunk")
	}
	if ch.Error != nil {
		return nil, false, &Error{Status: ch.Error.status(), Message: "the model endpoint reported an error: " + ch.Error.Message}
	}
	if ch.Model != "" {
		d.model = wire.Sanitize(ch.Model, maxModelRunes)
	}
	var out []Event
	if len(ch.Choices) > 0 {
		c := ch.Choices[0]
		if r := cmp.Or(c.Delta.ReasoningContent, c.Delta.Reasoning); r != "" {
			out = append(out, Event{Type: EventReasoning, Text: r})
		}
		if c.Delta.Content != "" {
			out = append(out, Event{Type: EventText, Text: c.Delta.Content})
		}
		for i, tc := range c.Delta.ToolCalls {
			evs, err := d.toolCall(i, tc)
			if err != nil {
				return nil, false, err
			}
			out = append(out, evs...)
		}
		if c.FinishReason != "" {
			d.finish = c.FinishReason
		}
	}
	if ch.Usage != nil {
		out = append(out, Event{Type: EventUsage, Usage: Usage{InputTokens: ch.Usage.PromptTokens, OutputTokens: ch.Usage.CompletionTokens}})
	}
	return out, false, nil
}

// toolCall is the events of the i-th tool call piece of a chunk; a piece
// without an index (some servers send whole calls) is known by its place.
func (d *openAIDecoder) toolCall(i int, tc oaToolCallDelta) ([]Event, error) {
	idx := i
	if tc.Index != nil {
		idx = *tc.Index
	}
	var out []Event
	if !d.calls[idx] {
		if tc.Function.Name == "" {
			return nil, errors.New("the model began a tool call without a name")
		}
		d.calls[idx] = true
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", idx)
		}
		out = append(out, Event{Type: EventToolCall, Index: idx, ID: id, Name: tc.Function.Name})
	}
	if tc.Function.Arguments != "" {
		out = append(out, Event{Type: EventToolArgs, Index: idx, Text: tc.Function.Arguments})
	}
	return out, nil
}

// stopReason maps finish_reason; an answer with tool calls waits for
// their results whatever the server said (some say "stop").
func (d *openAIDecoder) stopReason() StopReason {
	switch {
	case d.finish == "length":
		return StopMaxTokens
	case d.finish == "content_filter":
		return StopRefusal
	case d.finish == "tool_calls" || d.finish == "function_call" || len(d.calls) > 0:
		return StopToolUse
	}
	return StopEndTurn
}
