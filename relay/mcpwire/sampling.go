package mcpwire

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Conversion of sampling requests (go-sdk → wire, untrusted: sanitized and
// capped), of their answers (wire → go-sdk, checked by the broker), and of
// the reply of an agent's client a request was forwarded to (go-sdk → wire,
// untrusted, for the broker to check as any answer).

// Caps on a sampling request.
const (
	maxSamplingTextRunes = 64 << 10 // one text block, or the system prompt
	maxStopSequences     = 16
	maxModelHints        = 16
	maxToolResultDepth   = 2 // a tool_result holding content holding a tool_result
)

// SamplingRequest converts a server's sampling request into what a
// dashboard shows. A request it cannot show (too large, malformed) is an
// error that says why.
func SamplingRequest(p *mcp.CreateMessageWithToolsParams) (*wire.SamplingRequest, error) {
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
		sr.ToolChoice = wire.ToolChoice(line(p.ToolChoice.Mode, maxKeyRunes))
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
		wm := wire.SamplingMessage{Role: wire.Role(line(string(m.Role), maxKeyRunes))}
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

// SamplingResult converts an answer the broker checked into the go-sdk's
// result.
func SamplingResult(r *wire.SamplingResult) (*mcp.CreateMessageWithToolsResult, error) {
	out := &mcp.CreateMessageWithToolsResult{Role: mcp.Role(wire.RoleAssistant), Model: r.Model, StopReason: string(r.StopReason)}
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

// maxAgentBlocks caps the content blocks of an agent's reply.
const maxAgentBlocks = 64

// AgentReply converts an agent client's reply to a forwarded sampling
// request, untrusted, into an answer for the broker to check. A reply the
// relay cannot pass on is a [wire.CodeUpstream] error that says why.
func AgentReply(r *mcp.CreateMessageWithToolsResult) (wire.SamplingResult, error) {
	bad := func(msg string) (wire.SamplingResult, error) {
		return wire.SamplingResult{}, wire.NewError(wire.CodeUpstream, "the agent's client replied with "+msg)
	}
	switch {
	case r == nil:
		return bad("nothing")
	case r.Role != "" && wire.Role(r.Role) != wire.RoleAssistant:
		return bad("a message of role " + line(string(r.Role), maxKeyRunes) + ", not assistant")
	case len(r.Content) > maxAgentBlocks:
		return bad("too many content blocks")
	}
	out := wire.SamplingResult{Model: line(r.Model, maxKeyRunes), StopReason: wire.StopReason(line(r.StopReason, maxKeyRunes))}
	for _, c := range r.Content {
		wc, err := samplingContent(c, maxToolResultDepth)
		if err != nil {
			return bad("content the relay cannot pass on: " + err.Error())
		}
		out.Content = append(out.Content, wc)
	}
	return out, nil
}

// AgentFailure is the failure of an agent's client to answer a forwarded
// sampling request, as a dashboard shows it.
func AgentFailure(err error) *wire.Error {
	msg := err.Error()
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		msg = je.Message
	}
	return wire.NewError(wire.CodeUpstream, "the agent's client did not answer: "+line(msg, wire.MaxForwardErrorRunes))
}
