package modelfixture

import (
	"encoding/json"
	"fmt"
	"time"
)

// oaChunk is a chat.completion.chunk.
type oaChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []oaChoice      `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

type oaChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaDelta struct {
	Role             string            `json:"role,omitempty"`
	Content          *string           `json:"content,omitempty"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCallDelta `json:"tool_calls,omitempty"`
}

type oaToolCallDelta struct {
	Index    int        `json:"index"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// oaUsage is OpenAI's usage object.
type oaUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func newOAUsage(u Usage) oaUsage {
	return oaUsage{PromptTokens: u.Input, CompletionTokens: u.Output, TotalTokens: u.Input + u.Output}
}

// openAIStop is a stop reason as OpenAI's finish_reason.
func openAIStop(s Stop) string {
	switch s {
	case StopEnd:
		return "stop"
	case StopToolUse:
		return "tool_calls"
	case StopMaxTokens:
		return "length"
	}
	return string(s)
}

// openAIPlan is a reply as an OpenAI stream: a chunk naming the role,
// reasoning_content deltas, content deltas, each tool call's first chunk
// (id, name, empty arguments) and argument fragments, a chunk with the
// finish_reason, the usage chunk when asked for, and [DONE].
func openAIPlan(req *Request, reply Reply) plan {
	base := oaChunk{ID: fmt.Sprintf("chatcmpl-fixture-%d", req.N), Object: "chat.completion.chunk",
		Created: time.Now().Unix(), Model: modelOf(req)}
	if req.IncludeUsage {
		base.Usage = json.RawMessage("null") // every chunk has usage, null but the last
	}
	chunk := func(d oaDelta, finish *string, delta bool) event {
		c := base
		c.Choices = []oaChoice{{Delta: d, FinishReason: finish}}
		return event{data: c, delta: delta}
	}
	var pl plan
	add := func(e event) { pl.events = append(pl.events, e) }
	empty := ""
	add(chunk(oaDelta{Role: "assistant", Content: &empty}, nil, false))
	for _, c := range reply.chunks(reply.Reasoning) {
		add(chunk(oaDelta{ReasoningContent: c}, nil, true))
	}
	for _, c := range reply.chunks(reply.Text) {
		add(chunk(oaDelta{Content: &c}, nil, true))
	}
	pl.endlessAt = len(pl.events)
	for i, call := range reply.ToolCalls {
		add(chunk(oaDelta{ToolCalls: []oaToolCallDelta{{Index: i, ID: callID(req, i, call), Type: "function",
			Function: oaFunction{Name: call.Name}}}}, nil, false))
		for _, c := range reply.chunks(call.arguments()) {
			add(chunk(oaDelta{ToolCalls: []oaToolCallDelta{{Index: i, Function: oaFunction{Arguments: c}}}}, nil, true))
		}
	}
	pl.tail = len(pl.events)
	finish := openAIStop(reply.stop())
	add(chunk(oaDelta{}, &finish, false))
	if req.IncludeUsage {
		c := base
		c.Choices = []oaChoice{}
		c.Usage, _ = json.Marshal(newOAUsage(reply.Usage))
		add(event{data: c})
	}
	add(event{data: "[DONE]"})
	token := EndlessToken
	pl.token = func() event { return chunk(oaDelta{Content: &token}, nil, true) }
	pl.failure = func(f Fail) event {
		e := newOpenAIError(500, "", "")
		e.Error.Type, e.Error.Message = failDefaults(OpenAI, f)
		return event{data: e}
	}
	return pl
}

// oaCompletion is a chat.completion object.
type oaCompletion struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []oaMessageChoice `json:"choices"`
	Usage   oaUsage           `json:"usage"`
}

type oaMessageChoice struct {
	Index        int       `json:"index"`
	Message      oaMessage `json:"message"`
	FinishReason string    `json:"finish_reason"`
}

type oaMessage struct {
	Role             string       `json:"role"`
	Content          *string      `json:"content"`
	ReasoningContent string       `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCall `json:"tool_calls,omitempty"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

// openAIMessage is a reply as one chat.completion object; its content is
// null when it only calls tools.
func openAIMessage(req *Request, reply Reply) oaCompletion {
	msg := oaMessage{Role: "assistant", ReasoningContent: reply.Reasoning}
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		text := reply.Text
		msg.Content = &text
	}
	for i, c := range reply.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, oaToolCall{ID: callID(req, i, c), Type: "function",
			Function: oaFunction{Name: c.Name, Arguments: c.arguments()}})
	}
	return oaCompletion{ID: fmt.Sprintf("chatcmpl-fixture-%d", req.N), Object: "chat.completion",
		Created: time.Now().Unix(), Model: modelOf(req), Usage: newOAUsage(reply.Usage),
		Choices: []oaMessageChoice{{Message: msg, FinishReason: openAIStop(reply.stop())}}}
}
