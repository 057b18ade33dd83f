package llm

import (
	"encoding/json"
	"errors"
	"fmt"
)

// checkRequest refuses a request no provider could take: an unknown role,
// a part its role cannot hold, or a tool, call or result without its
// names.
func checkRequest(req *Request) error {
	if req == nil {
		return errors.New("no request")
	}
	for i, m := range req.Messages {
		if err := checkMessage(m); err != nil {
			return fmt.Errorf("message %d: %w", i+1, err)
		}
	}
	for _, t := range req.Tools {
		if t.Name == "" {
			return errors.New("a tool has no name")
		}
	}
	if req.ToolChoice.Mode == ToolNamed && req.ToolChoice.Name == "" {
		return errors.New("the tool choice names no tool")
	}
	return nil
}

// allowed lists the parts each role may hold.
var allowed = map[Role]map[PartType]bool{
	User:      {PartText: true, PartImage: true, PartAudio: true, PartToolResult: true},
	Assistant: {PartText: true, PartReasoning: true, PartToolCall: true},
}

func checkMessage(m Message) error {
	parts, ok := allowed[m.Role]
	if !ok {
		return fmt.Errorf("unknown role %q", m.Role)
	}
	for _, p := range m.Parts {
		if !parts[p.Type] {
			return fmt.Errorf("a %s message cannot hold a %q part", m.Role, p.Type)
		}
		if err := checkPart(p); err != nil {
			return err
		}
	}
	return nil
}

func checkPart(p Part) error {
	switch p.Type {
	case PartImage, PartAudio:
		if p.MIMEType == "" || len(p.Data) == 0 {
			return fmt.Errorf("an %s part needs a MIME type and data", p.Type)
		}
	case PartToolCall:
		if p.ToolCall == nil || p.ToolCall.ID == "" || p.ToolCall.Name == "" {
			return errors.New("a tool call needs an ID and a name")
		}
		if args := p.ToolCall.Arguments; len(args) > 0 && !json.Valid(args) {
			return fmt.Errorf("the arguments of tool call %s are not JSON", p.ToolCall.ID)
		}
	case PartToolResult:
		if p.ToolResult == nil || p.ToolResult.CallID == "" {
			return errors.New("a tool result needs the ID of its call")
		}
		for _, inner := range p.ToolResult.Parts {
			if inner.Type != PartText && inner.Type != PartImage {
				return fmt.Errorf("a tool result cannot hold a %q part", inner.Type)
			}
			if err := checkPart(inner); err != nil {
				return err
			}
		}
	}
	return nil
}

// orObject is raw, or a schema of any object when raw is empty.
func orObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return raw
}

// orEmpty is raw, or an empty object when raw is empty.
func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}
