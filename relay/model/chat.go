package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The OpenAI chat-completions request and response, as far as drafting
// uses them.

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int64         `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	Stop        []string      `json:"stop,omitempty"`
	Tools       []chatTool    `json:"tools,omitempty"`
	ToolChoice  string        `json:"tool_choice,omitempty"`
}

// chatMessage is one message; Content is a string or a list of parts.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatPart struct {
	Type       string          `json:"type"` // text, image_url, input_audio
	Text       string          `json:"text,omitempty"`
	ImageURL   *chatImageURL   `json:"image_url,omitempty"`
	InputAudio *chatInputAudio `json:"input_audio,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatInputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"` // wav or mp3
}

type chatTool struct {
	Type     string       `json:"type"` // function
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"` // function
	Function chatFunctionCall `json:"function"`
}

type chatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // a JSON object, as text
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   *string        `json:"content"`
			ToolCalls []chatToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// audioFormats are the audio types chat completions takes, by MIME type.
var audioFormats = map[string]string{
	"audio/wav": "wav", "audio/x-wav": "wav",
	"audio/mpeg": "mp3", "audio/mp3": "mp3",
}

// toChatRequest maps a sampling request to chat completions.
func toChatRequest(model string, req *wire.SamplingRequest) chatRequest {
	out := chatRequest{Model: model, MaxTokens: req.MaxTokens, Stop: req.StopSequences}
	if req.Temperature != 0 {
		t := req.Temperature
		out.Temperature = &t
	}
	if req.SystemPrompt != "" {
		out.Messages = append(out.Messages, chatMessage{Role: "system", Content: req.SystemPrompt})
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, toChatMessages(m)...)
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, chatTool{Type: "function", Function: chatFunction{
			Name: t.Name, Description: t.Description, Parameters: orObject(t.InputSchema),
		}})
	}
	if len(out.Tools) > 0 {
		out.ToolChoice = string(req.ToolChoice)
	}
	return out
}

// toChatMessages maps one sampling message: an assistant's to one message
// with its tool calls, a user's tool results to "tool" messages (first, as
// they answer the assistant's calls just before) and the rest to one user
// message.
func toChatMessages(m wire.SamplingMessage) []chatMessage {
	if m.Role == wire.RoleAssistant {
		msg := chatMessage{Role: "assistant"}
		var texts []string
		for _, c := range m.Content {
			switch c.Type {
			case wire.ContentToolUse:
				msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: c.ID, Type: "function",
					Function: chatFunctionCall{Name: c.Name, Arguments: string(orObject(c.Input))}})
			default:
				texts = append(texts, asText(c))
			}
		}
		if len(texts) > 0 {
			msg.Content = strings.Join(texts, "\n\n")
		}
		return []chatMessage{msg}
	}
	var out []chatMessage
	var parts []chatPart
	for _, c := range m.Content {
		switch c.Type {
		case wire.ContentToolResult:
			out = append(out, chatMessage{Role: "tool", ToolCallID: c.ToolUseID, Content: toolResultText(c)})
		case wire.ContentText:
			parts = append(parts, chatPart{Type: "text", Text: c.Text})
		case wire.ContentImage:
			parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: "data:" + c.MIMEType + ";base64," + c.Data}})
		case wire.ContentAudio:
			if f, ok := audioFormats[c.MIMEType]; ok {
				parts = append(parts, chatPart{Type: "input_audio", InputAudio: &chatInputAudio{Data: c.Data, Format: f}})
			} else {
				parts = append(parts, chatPart{Type: "text", Text: asText(c)})
			}
		default:
			parts = append(parts, chatPart{Type: "text", Text: asText(c)})
		}
	}
	if len(parts) > 0 {
		out = append(out, chatMessage{Role: "user", Content: parts})
	}
	return out
}

// toolResultText is a tool result as the text of a "tool" message.
func toolResultText(c wire.SamplingContent) string {
	var texts []string
	if c.IsError {
		texts = append(texts, "[the tool reported an error]")
	}
	for _, inner := range c.Content {
		texts = append(texts, asText(inner))
	}
	if len(c.StructuredContent) > 0 && len(c.Content) == 0 {
		texts = append(texts, string(c.StructuredContent))
	}
	return strings.Join(texts, "\n\n")
}

// asText is a block said in words where chat completions has no place for it.
func asText(c wire.SamplingContent) string {
	switch c.Type {
	case wire.ContentText:
		return c.Text
	case wire.ContentImage, wire.ContentAudio:
		return fmt.Sprintf("[%s of type %s, not passed to the model here]", c.Type, c.MIMEType)
	case wire.ContentToolResult:
		return toolResultText(c)
	case wire.ContentToolUse:
		return fmt.Sprintf("[call of tool %s with %s]", c.Name, orObject(c.Input))
	}
	return fmt.Sprintf("[%s block]", c.Type)
}

// orObject is raw, or an empty object when raw is empty.
func orObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}

// fromChatResponse maps the model's message back to a sampling result.
func fromChatResponse(model string, cr chatResponse) (wire.SamplingResult, error) {
	if len(cr.Choices) == 0 {
		return wire.SamplingResult{}, errors.New("the model answered no choice")
	}
	ch := cr.Choices[0]
	res := wire.SamplingResult{Model: model}
	if cr.Model != "" {
		res.Model = wire.Sanitize(cr.Model, 200)
	}
	if t := ch.Message.Content; t != nil && strings.TrimSpace(*t) != "" {
		res.Content = append(res.Content, wire.SamplingContent{Type: wire.ContentText, Text: *t})
	}
	for _, tc := range ch.Message.ToolCalls {
		args := json.RawMessage(tc.Function.Arguments)
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			args = json.RawMessage(`{}`)
		}
		var obj map[string]any
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			return wire.SamplingResult{}, fmt.Errorf("the model called %s with arguments that are not a JSON object", wire.Sanitize(tc.Function.Name, 100))
		}
		res.Content = append(res.Content, wire.SamplingContent{Type: wire.ContentToolUse, ID: tc.ID, Name: tc.Function.Name, Input: args})
	}
	if len(res.Content) == 0 {
		return wire.SamplingResult{}, errors.New("the model answered an empty message")
	}
	switch ch.FinishReason {
	case "tool_calls", "function_call":
		res.StopReason = wire.StopToolUse
	case "length":
		res.StopReason = wire.StopMaxTokens
	default:
		res.StopReason = wire.StopEndTurn
	}
	if len(ch.Message.ToolCalls) > 0 {
		res.StopReason = wire.StopToolUse
	}
	return res, nil
}
