package llm

import (
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
)

// callStream is a streamed answer with one tool call whose arguments
// arrive in the given pieces.
func callStream(args ...string) []string {
	var chunks []string
	chunks = append(chunks, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`)
	for _, a := range args {
		chunks = append(chunks, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+asJSON(a)+`}}]}}]}`)
	}
	chunks = append(chunks, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]")
	return sse(chunks...)
}

func TestCollectRefusesArgumentsThatAreNotAJSONObject(t *testing.T) {
	for name, args := range map[string][]string{
		"cut":        {`{"city":`, ` "Par`},
		"not JSON":   {`city=Paris`},
		"an array":   {`[1,`, `2]`},
		"null":       {`null`},
		"two values": {`{}`, `{}`},
	} {
		e := newEndpoint(t, reply{body: callStream(args...)})
		_, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), hello()))
		var le *Error
		if !errors.As(err, &le) || !strings.Contains(le.Message, "get_weather") || !strings.Contains(le.Message, "not a JSON object") {
			t.Errorf("%s: error %v, want one naming the tool", name, err)
		}
	}
}

func TestCollectTakesNoArgumentsAsAnEmptyObject(t *testing.T) {
	e := newEndpoint(t, reply{body: callStream()})
	res, err := Collect(newClient(t, OpenAI, e).Stream(t.Context(), hello()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Message.Parts) != 1 || string(res.Message.Parts[0].ToolCall.Arguments) != "{}" {
		t.Errorf("parts %s", partsJSON(res.Message.Parts))
	}
}

// seq yields evs, then err if there is one.
func seq(err error, evs ...Event) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
		if err != nil {
			yield(Event{}, err)
		}
	}
}

func TestCollectFailsOnABrokenSequence(t *testing.T) {
	refused := &Error{Status: 500, Message: "the model endpoint reported an error"}
	for name, s := range map[string]iter.Seq2[Event, error]{
		"the stream's error": seq(refused, Event{Type: EventText, Text: "Hel"}),
		"no end":             seq(nil, Event{Type: EventText, Text: "Hel"}),
		"arguments of no call": seq(nil, Event{Type: EventToolArgs, Index: 3, Text: "{}"},
			Event{Type: EventEnd, StopReason: StopToolUse}),
		"a call begun twice": seq(nil, Event{Type: EventToolCall, Index: 0, ID: "a", Name: "f"},
			Event{Type: EventToolCall, Index: 0, ID: "b", Name: "f"}, Event{Type: EventEnd}),
	} {
		res, err := Collect(s)
		if _, ok := errors.AsType[*Error](err); !ok || res.StopReason != "" || res.Message.Parts != nil {
			t.Errorf("%s: %+v, %v; want an *Error and no response", name, res, err)
		}
		if name == "the stream's error" && !errors.Is(err, refused) {
			t.Errorf("the stream's error became %v", err)
		}
	}
}

// Signed reasoning blocks stay apart: each goes back with its own
// signature.
func TestCollectKeepsSignedReasoningBlocksApart(t *testing.T) {
	res, err := Collect(seq(nil,
		Event{Type: EventReasoning, Text: "one"}, Event{Type: EventReasoning, Signature: "s1"},
		Event{Type: EventReasoning, Text: "two"}, Event{Type: EventReasoning, Signature: "s2"},
		Event{Type: EventText, Text: "done"}, Event{Type: EventEnd, StopReason: StopEndTurn}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Part{{Type: PartReasoning, Text: "one", Signature: "s1"}, {Type: PartReasoning, Text: "two", Signature: "s2"}, TextPart("done")}
	if !slices.EqualFunc(res.Message.Parts, want, func(a, b Part) bool { return a.Type == b.Type && a.Text == b.Text && a.Signature == b.Signature }) {
		t.Errorf("parts %s", partsJSON(res.Message.Parts))
	}
}
