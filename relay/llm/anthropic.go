package llm

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// DefaultMaxTokens is the max_tokens asked of Anthropic, which requires
// one, when the request sets none.
const DefaultMaxTokens = 4096

// The Messages API request, as this package sends it.

type anRequest struct {
	Model         string        `json:"model"`
	MaxTokens     int           `json:"max_tokens"`
	System        string        `json:"system,omitempty"`
	Messages      []anMessage   `json:"messages"`
	Tools         []anTool      `json:"tools,omitempty"`
	ToolChoice    *anToolChoice `json:"tool_choice,omitempty"`
	StopSequences []string      `json:"stop_sequences,omitempty"`
	Temperature   *float64      `json:"temperature,omitempty"`
	Stream        bool          `json:"stream"`
}

type anMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // content blocks
}

type anText struct {
	Type string `json:"type"` // text
	Text string `json:"text"`
}

type anImage struct {
	Type   string   `json:"type"` // image
	Source anSource `json:"source"`
}

type anSource struct {
	Type      string `json:"type"` // base64
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anToolUse struct {
	Type  string          `json:"type"` // tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anToolResult struct {
	Type      string `json:"type"` // tool_result
	ToolUseID string `json:"tool_use_id"`
	Content   []any  `json:"content,omitempty"` // text and image blocks
	IsError   bool   `json:"is_error,omitempty"`
}

type anThinking struct {
	Type      string `json:"type"` // thinking
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anToolChoice struct {
	Type string `json:"type"` // auto, any, tool, none
	Name string `json:"name,omitempty"`
}

// encodeAnthropic is req as a streamed Messages request.
func encodeAnthropic(model string, req *Request) ([]byte, error) {
	out := anRequest{Model: model, MaxTokens: req.MaxTokens, System: req.System, StopSequences: req.Stop,
		Temperature: req.Temperature, Stream: true, Messages: []anMessage{}}
	if out.MaxTokens <= 0 {
		out.MaxTokens = DefaultMaxTokens
	}
	for i, m := range req.Messages {
		blocks, err := anBlocks(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		if len(blocks) > 0 {
			out.Messages = append(out.Messages, anMessage{Role: string(m.Role), Content: blocks})
		}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: orObject(t.InputSchema)})
	}
	if len(out.Tools) > 0 {
		out.ToolChoice = anChoice(req.ToolChoice)
	}
	return json.Marshal(out)
}

// anChoice is the tool_choice object of c; nil leaves it out.
func anChoice(c ToolChoice) *anToolChoice {
	switch c.Mode {
	case ToolAuto, ToolNone:
		return &anToolChoice{Type: string(c.Mode)}
	case ToolRequired:
		return &anToolChoice{Type: "any"}
	case ToolNamed:
		return &anToolChoice{Type: "tool", Name: c.Name}
	}
	return nil
}

// anBlocks is a message's content blocks, tool results first (the API
// wants them before anything else in a user message). Empty text is left
// out (the API refuses it), and so is reasoning without its signature.
func anBlocks(m Message) ([]any, error) {
	var results, blocks []any
	for _, p := range m.Parts {
		switch p.Type {
		case PartText:
			if p.Text != "" {
				blocks = append(blocks, anText{Type: "text", Text: p.Text})
			}
		case PartImage:
			blocks = append(blocks, anImageBlock(p))
		case PartAudio:
			return nil, errors.New("Anthropic's Messages API takes no audio")
		case PartReasoning:
			if p.Signature != "" {
				blocks = append(blocks, anThinking{Type: "thinking", Thinking: p.Text, Signature: p.Signature})
			}
		case PartToolCall:
			blocks = append(blocks, anToolUse{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: orEmpty(p.ToolCall.Arguments)})
		case PartToolResult:
			results = append(results, anResult(p.ToolResult))
		}
	}
	return append(results, blocks...), nil
}

// anResult is a tool result block with its text and image blocks.
func anResult(r *ToolResult) anToolResult {
	out := anToolResult{Type: "tool_result", ToolUseID: r.CallID, IsError: r.IsError}
	for _, p := range r.Parts {
		switch {
		case p.Type == PartImage:
			out.Content = append(out.Content, anImageBlock(p))
		case p.Text != "":
			out.Content = append(out.Content, anText{Type: "text", Text: p.Text})
		}
	}
	return out
}

func anImageBlock(p Part) anImage {
	return anImage{Type: "image", Source: anSource{Type: "base64", MediaType: p.MIMEType, Data: base64.StdEncoding.EncodeToString(p.Data)}}
}
