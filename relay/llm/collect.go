package llm

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Collect reads a whole stream and assembles its answer: pieces of text
// and of reasoning join into parts, and each tool call's arguments into
// one JSON object (no arguments are {}). It fails with the stream's
// error, on arguments that are not a JSON object, or when the stream
// ends without its [EventEnd].
func Collect(seq iter.Seq2[Event, error]) (Response, error) {
	var a assembler
	for ev, err := range seq {
		if err != nil {
			return Response{}, err
		}
		if err := a.add(ev); err != nil {
			return Response{}, err
		}
		if ev.Type == EventEnd {
			return a.response()
		}
	}
	return Response{}, &Error{Message: errBrokeOff.Error()}
}

// assembler gathers the events of one answer.
type assembler struct {
	res   Response
	parts []Part
	text  []*strings.Builder // beside parts: the text of text and reasoning parts
	args  map[int]int        // a call's index to its part's place
}

func (a *assembler) add(ev Event) error {
	switch ev.Type {
	case EventText:
		a.appendText(PartText, ev.Text, "")
	case EventReasoning:
		a.appendText(PartReasoning, ev.Text, ev.Signature)
	case EventToolCall:
		if a.args == nil {
			a.args = map[int]int{}
		}
		if _, ok := a.args[ev.Index]; ok {
			return &Error{Message: fmt.Sprintf("the model began tool call %d twice", ev.Index)}
		}
		a.args[ev.Index] = len(a.parts)
		a.parts = append(a.parts, ToolCallPart(ToolCall{ID: ev.ID, Name: ev.Name}))
		a.text = append(a.text, &strings.Builder{})
	case EventToolArgs:
		i, ok := a.args[ev.Index]
		if !ok {
			return &Error{Message: fmt.Sprintf("the model sent arguments of tool call %d, which it never began", ev.Index)}
		}
		a.text[i].WriteString(ev.Text)
	case EventUsage:
		a.res.Usage = ev.Usage
	case EventEnd:
		a.res.StopReason, a.res.Model = ev.StopReason, ev.Model
	}
	return nil
}

// appendText adds to the last part when it is of type t, or begins one;
// reasoning after a signed reasoning part is a new block.
func (a *assembler) appendText(t PartType, text, signature string) {
	if n := len(a.parts); n == 0 || a.parts[n-1].Type != t || (text != "" && a.parts[n-1].Signature != "") {
		a.parts = append(a.parts, Part{Type: t})
		a.text = append(a.text, &strings.Builder{})
	}
	n := len(a.parts)
	a.text[n-1].WriteString(text)
	if signature != "" {
		a.parts[n-1].Signature += signature
	}
}

// response is the assembled answer, its tool calls' arguments checked.
func (a *assembler) response() (Response, error) {
	for i, p := range a.parts {
		s := a.text[i].String()
		if p.Type != PartToolCall {
			a.parts[i].Text = s
			continue
		}
		if strings.TrimSpace(s) == "" {
			s = "{}"
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
			return Response{}, &Error{Message: fmt.Sprintf("the model called %s with arguments that are not a JSON object", wire.Sanitize(p.ToolCall.Name, 100))}
		}
		p.ToolCall.Arguments = json.RawMessage(s)
	}
	a.res.Message = Message{Role: Assistant, Parts: a.parts}
	return a.res, nil
}
