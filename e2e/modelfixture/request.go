package modelfixture

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
)

// Provider is the wire format a request came in.
type Provider string

// The providers the fixture speaks.
const (
	OpenAI    Provider = "openai"    // POST /v1/chat/completions
	Anthropic Provider = "anthropic" // POST /v1/messages
)

// Request is one request the fixture got: as sent, and a decoded view.
type Request struct {
	N        int // its place among the fixture's requests, from 1
	Provider Provider
	Path     string
	Header   http.Header // Authorization, x-api-key, anthropic-version, ...
	Body     []byte      // the raw body

	Model string
	// System is Anthropic's system (a string, or its text blocks joined
	// by "\n"), or the text of OpenAI's system and developer messages,
	// joined by "\n"; those stay in Messages too.
	System       string
	Messages     []Message
	Tools        []Tool
	Stream       bool
	IncludeUsage bool // OpenAI stream_options.include_usage
	MaxTokens    int  // max_tokens, or OpenAI's max_completion_tokens

	// Rejected is set when the request carried a wrong key and got a 401.
	Rejected bool

	done chan struct{} // closed when the fixture is done answering
	gone atomic.Bool   // the client went away before the answer ended
}

// Done is closed when the fixture has finished answering the request.
func (r *Request) Done() <-chan struct{} { return r.done }

// ClientGone reports, once Done is closed, whether the answer stopped
// because the client went away (or the fixture stopped).
func (r *Request) ClientGone() bool { return r.gone.Load() }

// Message is one message of a request's conversation.
type Message struct {
	Role    string
	Content json.RawMessage // a string or an array of parts or blocks, as sent
	Raw     json.RawMessage // the whole message
}

// Tool is a tool a request offers the model.
type Tool struct {
	Name, Description string
	Schema            json.RawMessage // OpenAI parameters, Anthropic input_schema
}

// ToolResult is a tool's result a message carries back to the model.
type ToolResult struct {
	ID      string // OpenAI tool_call_id, Anthropic tool_use_id
	Content string // its text
	IsError bool   // Anthropic is_error
}

// block is a content part or block of either provider.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// textOf is the text of content: a string, or its text parts joined.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	for _, b := range blocksOf(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "")
}

// blocksOf is content's parts or blocks; none for a string.
func blocksOf(raw json.RawMessage) []block {
	var bs []block
	json.Unmarshal(raw, &bs)
	return bs
}

// Text is the message's text: its string content, or its text parts.
func (m Message) Text() string { return textOf(m.Content) }

// ToolCalls are the calls an assistant message makes: OpenAI tool_calls,
// or Anthropic tool_use blocks (Arguments is then the input's JSON).
func (m Message) ToolCalls() []ToolCall {
	var msg struct {
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	json.Unmarshal(m.Raw, &msg)
	var calls []ToolCall
	for _, c := range msg.ToolCalls {
		calls = append(calls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	for _, b := range blocksOf(m.Content) {
		if b.Type == "tool_use" {
			calls = append(calls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	return calls
}

// ToolResults are the tool results a message carries: an OpenAI message
// of role tool, or Anthropic tool_result blocks.
func (m Message) ToolResults() []ToolResult {
	if m.Role == "tool" {
		var msg struct {
			ID string `json:"tool_call_id"`
		}
		json.Unmarshal(m.Raw, &msg)
		return []ToolResult{{ID: msg.ID, Content: m.Text()}}
	}
	var results []ToolResult
	for _, b := range blocksOf(m.Content) {
		if b.Type == "tool_result" {
			results = append(results, ToolResult{ID: b.ToolUseID, Content: textOf(b.Content), IsError: b.IsError})
		}
	}
	return results
}

// wireRequest is a request body of either provider.
type wireRequest struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
		Function    *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
}

// decode fills the request's decoded view from its body.
func (r *Request) decode() error {
	var w wireRequest
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	r.Model, r.Stream, r.IncludeUsage = w.Model, w.Stream, w.StreamOptions.IncludeUsage
	r.MaxTokens = max(w.MaxTokens, w.MaxCompletionTokens)
	var system []string
	if len(w.System) > 0 {
		system = append(system, systemText(w.System))
	}
	for _, raw := range w.Messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: m.Content, Raw: raw})
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, textOf(m.Content))
		}
	}
	r.System = strings.Join(system, "\n")
	for _, t := range w.Tools {
		tool := Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema}
		if f := t.Function; f != nil {
			tool = Tool{Name: f.Name, Description: f.Description, Schema: f.Parameters}
		}
		r.Tools = append(r.Tools, tool)
	}
	return nil
}

// systemText is Anthropic's system: a string, or text blocks joined by "\n".
func systemText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var texts []string
	for _, b := range blocksOf(raw) {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}
