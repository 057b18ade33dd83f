package models

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The mapping between MCP sampling and the model's request and answer.

// toolChoices maps MCP's tool choice to the model's.
var toolChoices = map[wire.ToolChoice]llm.ToolMode{
	wire.ToolChoiceAuto: llm.ToolAuto, wire.ToolChoiceRequired: llm.ToolRequired, wire.ToolChoiceNone: llm.ToolNone,
}

// toRequest maps a sampling request to a model of spec s.
func toRequest(s Spec, req *wire.SamplingRequest) *llm.Request {
	out := &llm.Request{System: req.SystemPrompt, MaxTokens: int(min(req.MaxTokens, maxTokensLimit)), Stop: req.StopSequences,
		ToolChoice: llm.ToolChoice{Mode: toolChoices[req.ToolChoice]}}
	if req.Temperature != 0 {
		t := req.Temperature
		out.Temperature = &t
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, llm.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	for _, m := range req.Messages {
		msg := toMessage(s, m)
		if len(msg.Parts) > 0 {
			out.Messages = append(out.Messages, msg)
		}
	}
	return out
}

// toMessage maps one sampling message: an assistant's text and tool_use
// blocks; a user's (or any other role's) text, images, audio and
// tool_result blocks. A block the model has no place for is said in words.
func toMessage(s Spec, m wire.SamplingMessage) llm.Message {
	if m.Role == wire.RoleAssistant {
		out := llm.Message{Role: llm.Assistant}
		for _, c := range m.Content {
			switch c.Type {
			case wire.ContentText:
				out.Parts = append(out.Parts, llm.TextPart(c.Text))
			case wire.ContentToolUse:
				out.Parts = append(out.Parts, llm.ToolCallPart(llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: orObject(c.Input)}))
			default:
				out.Parts = append(out.Parts, llm.TextPart(inWords(c, "")))
			}
		}
		return out
	}
	out := llm.Message{Role: llm.User}
	for _, c := range m.Content {
		switch c.Type {
		case wire.ContentText:
			out.Parts = append(out.Parts, llm.TextPart(c.Text))
		case wire.ContentImage:
			out.Parts = append(out.Parts, image(s, c))
		case wire.ContentAudio:
			out.Parts = append(out.Parts, audio(s, c))
		case wire.ContentToolResult:
			out.Parts = append(out.Parts, toolResult(s, c))
		default:
			out.Parts = append(out.Parts, llm.TextPart(inWords(c, "")))
		}
	}
	return out
}

// image is an image block: the image, for a model that takes images.
func image(s Spec, c wire.SamplingContent) llm.Part {
	if !s.Images {
		return llm.TextPart(inWords(c, "the model takes no images"))
	}
	data, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil || c.MIMEType == "" {
		return llm.TextPart(inWords(c, "its data is not base64"))
	}
	return llm.ImagePart(c.MIMEType, data)
}

// audio is an audio block: the sound, where the endpoint takes its type.
func audio(s Spec, c wire.SamplingContent) llm.Part {
	if !s.Provider.TakesAudio(c.MIMEType) {
		return llm.TextPart(inWords(c, "the model takes no audio of this type"))
	}
	data, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return llm.TextPart(inWords(c, "its data is not base64"))
	}
	return llm.AudioPart(c.MIMEType, data)
}

// toolResult is a tool_result block: its text and images, or its
// structured content when it has no other.
func toolResult(s Spec, c wire.SamplingContent) llm.Part {
	r := llm.ToolResult{CallID: c.ToolUseID, IsError: c.IsError}
	for _, inner := range c.Content {
		switch inner.Type {
		case wire.ContentText:
			r.Parts = append(r.Parts, llm.TextPart(inner.Text))
		case wire.ContentImage:
			r.Parts = append(r.Parts, image(s, inner))
		default:
			r.Parts = append(r.Parts, llm.TextPart(inWords(inner, "")))
		}
	}
	if len(c.Content) == 0 && len(c.StructuredContent) > 0 {
		r.Parts = append(r.Parts, llm.TextPart(string(c.StructuredContent)))
	}
	return llm.ToolResultPart(r)
}

// inWords is a block said in words where the model has no place for it,
// and why.
func inWords(c wire.SamplingContent, why string) string {
	if why != "" {
		why = ": " + why
	}
	switch c.Type {
	case wire.ContentImage, wire.ContentAudio:
		return fmt.Sprintf("[%s of type %s, not passed to the model%s]", c.Type, c.MIMEType, why)
	case wire.ContentToolUse:
		return fmt.Sprintf("[call of tool %s with %s]", c.Name, orObject(c.Input))
	case wire.ContentToolResult:
		var texts []string
		for _, inner := range c.Content {
			texts = append(texts, inWords(inner, why))
		}
		return "[result of a tool call: " + strings.Join(texts, " ") + "]"
	case wire.ContentText:
		return c.Text
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

// fromResponse maps the model's answer back to a sampling result: its
// text and its tool calls, as tool_use blocks; reasoning stays out.
func fromResponse(model string, res llm.Response) (wire.SamplingResult, error) {
	out := wire.SamplingResult{Model: model, StopReason: wire.StopEndTurn}
	if res.Model != "" {
		out.Model = wire.Sanitize(res.Model, 200)
	}
	var text strings.Builder
	for _, p := range res.Message.Parts {
		if p.Type == llm.PartText {
			text.WriteString(p.Text)
		}
	}
	if t := text.String(); strings.TrimSpace(t) != "" {
		out.Content = append(out.Content, wire.SamplingContent{Type: wire.ContentText, Text: t})
	}
	for _, p := range res.Message.Parts {
		if p.Type == llm.PartToolCall {
			out.Content = append(out.Content, wire.SamplingContent{Type: wire.ContentToolUse, ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: p.ToolCall.Arguments})
			out.StopReason = wire.StopToolUse
		}
	}
	if len(out.Content) == 0 {
		return wire.SamplingResult{}, errors.New("the model answered an empty message")
	}
	if res.StopReason == llm.StopMaxTokens && out.StopReason != wire.StopToolUse {
		out.StopReason = wire.StopMaxTokens
	}
	return out, nil
}
