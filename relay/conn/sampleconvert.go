package conn

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Conversion of sampling requests (go-sdk → wire, untrusted: sanitized and
// capped) and of their answers (wire → go-sdk, checked by the broker).

// Caps on a sampling request.
const (
	maxSamplingTextRunes = 64 << 10 // one text block, or the system prompt
	maxStopSequences     = 16
	maxModelHints        = 16
	maxToolResultDepth   = 2 // a tool_result holding content holding a tool_result
)

// samplingRequest converts a server's request into what the dashboard shows.
func samplingRequest(p *mcp.CreateMessageWithToolsParams) (*wire.SamplingRequest, error) {
	if p == nil {
		return nil, errors.New("a sampling request needs params")
	}
	if len(p.Messages) > wire.MaxSamplingMessages {
		return nil, fmt.Errorf("the sampling request has %d messages, over the %d the relay shows", len(p.Messages), wire.MaxSamplingMessages)
	}
	if len(p.Tools) > wire.MaxSamplingTools {
		return nil, fmt.Errorf("the sampling request offers %d tools, over the %d the relay shows", len(p.Tools), wire.MaxSamplingTools)
	}
	sr := &wire.SamplingRequest{
		SystemPrompt:   text(p.SystemPrompt, maxSamplingTextRunes),
		IncludeContext: line(p.IncludeContext, maxKeyRunes),
		MaxTokens:      p.MaxTokens,
		Temperature:    p.Temperature,
		Messages:       make([]wire.SamplingMessage, 0, len(p.Messages)),
	}
	for i, s := range p.StopSequences {
		if i == maxStopSequences {
			break
		}
		sr.StopSequences = append(sr.StopSequences, line(s, maxKeyRunes))
	}
	if mp := p.ModelPreferences; mp != nil {
		sr.ModelPreferences = &wire.ModelPreferences{CostPriority: mp.CostPriority, SpeedPriority: mp.SpeedPriority, IntelligencePriority: mp.IntelligencePriority}
		for _, h := range mp.Hints {
			if h != nil && len(sr.ModelPreferences.Hints) < maxModelHints {
				sr.ModelPreferences.Hints = append(sr.ModelPreferences.Hints, line(h.Name, maxKeyRunes))
			}
		}
	}
	if p.ToolChoice != nil {
		sr.ToolChoice = line(p.ToolChoice.Mode, maxKeyRunes)
	}
	for _, t := range p.Tools {
		if wt, ok := convertTool(t); ok {
			sr.Tools = append(sr.Tools, wt)
		}
	}
	for i, m := range p.Messages {
		if m == nil {
			return nil, fmt.Errorf("message %d is null", i+1)
		}
		wm := wire.SamplingMessage{Role: line(string(m.Role), maxKeyRunes)}
		for _, c := range m.Content {
			wc, err := samplingContent(c, 0)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i+1, err)
			}
			wm.Content = append(wm.Content, wc)
		}
		sr.Messages = append(sr.Messages, wm)
	}
	if b, _ := json.Marshal(sr); len(b) > wire.MaxSamplingBytes {
		return nil, fmt.Errorf("the sampling request is %d bytes, over the %d the relay shows", len(b), wire.MaxSamplingBytes)
	}
	return sr, nil
}

// samplingContent converts one content block of a request.
func samplingContent(c mcp.Content, depth int) (wire.SamplingContent, error) {
	switch c := c.(type) {
	case *mcp.TextContent:
		return wire.SamplingContent{Type: wire.ContentText, Text: text(c.Text, maxSamplingTextRunes)}, nil
	case *mcp.ImageContent:
		return wire.SamplingContent{Type: wire.ContentImage, MIMEType: line(c.MIMEType, maxMIMERunes), Data: base64.StdEncoding.EncodeToString(c.Data)}, nil
	case *mcp.AudioContent:
		return wire.SamplingContent{Type: wire.ContentAudio, MIMEType: line(c.MIMEType, maxMIMERunes), Data: base64.StdEncoding.EncodeToString(c.Data)}, nil
	case *mcp.ToolUseContent:
		input, err := json.Marshal(orEmpty(c.Input))
		if err != nil {
			return wire.SamplingContent{}, fmt.Errorf("tool_use input: %w", err)
		}
		return wire.SamplingContent{Type: wire.ContentToolUse, ID: line(c.ID, maxKeyRunes), Name: line(c.Name, maxKeyRunes), Input: input}, nil
	case *mcp.ToolResultContent:
		if depth >= maxToolResultDepth {
			return wire.SamplingContent{}, errors.New("tool results nested too deep")
		}
		out := wire.SamplingContent{Type: wire.ContentToolResult, ToolUseID: line(c.ToolUseID, maxKeyRunes), IsError: c.IsError}
		if c.StructuredContent != nil {
			out.StructuredContent = rawJSON(c.StructuredContent, maxSchemaBytes)
		}
		for _, inner := range c.Content {
			wc, err := samplingContent(inner, depth+1)
			if err != nil {
				return wire.SamplingContent{}, err
			}
			out.Content = append(out.Content, wc)
		}
		return out, nil
	case nil:
		return wire.SamplingContent{}, errors.New("a content block is null")
	}
	return wire.SamplingContent{}, fmt.Errorf("content of type %T has no place in sampling", c)
}

// orEmpty is m, or an empty object when m is nil.
func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// samplingResult converts an answer the broker checked into the go-sdk's
// result.
func samplingResult(r *wire.SamplingResult) (*mcp.CreateMessageWithToolsResult, error) {
	out := &mcp.CreateMessageWithToolsResult{Role: wire.RoleAssistant, Model: r.Model, StopReason: r.StopReason}
	for i, c := range r.Content {
		switch c.Type {
		case wire.ContentText:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		case wire.ContentImage, wire.ContentAudio:
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return nil, fmt.Errorf("block %d: data is not base64", i+1)
			}
			if c.Type == wire.ContentImage {
				out.Content = append(out.Content, &mcp.ImageContent{Data: data, MIMEType: c.MIMEType})
			} else {
				out.Content = append(out.Content, &mcp.AudioContent{Data: data, MIMEType: c.MIMEType})
			}
		case wire.ContentToolUse:
			var input map[string]any
			if err := json.Unmarshal(c.Input, &input); err != nil || input == nil {
				return nil, fmt.Errorf("block %d: tool_use input is not a JSON object", i+1)
			}
			out.Content = append(out.Content, &mcp.ToolUseContent{ID: c.ID, Name: c.Name, Input: input})
		default:
			return nil, fmt.Errorf("block %d: type %q cannot be answered", i+1, c.Type)
		}
	}
	if len(out.Content) == 0 {
		return nil, errors.New("the answer has no content")
	}
	return out, nil
}
