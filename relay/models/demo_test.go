package models

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/llm"
)

// demoTools are the demo server's tools as the chat offers them, with
// another server's.
var demoTools = []llm.Tool{{Name: "files__read"}, {Name: "srv1__echo"}, {Name: "srv1__greet"}}

func userSays(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.User, Parts: parts} }

// demoTurn streams the demo model's answer to req and checks what every
// answer must be: streamed in several pieces, labelled.
func demoTurn(t *testing.T, req *llm.Request) llm.Response {
	t.Helper()
	var pieces int
	res, err := llm.Collect(func(yield func(llm.Event, error) bool) {
		for ev, err := range (demoModel{}).Stream(t.Context(), req) {
			if ev.Type == llm.EventText {
				pieces++
			}
			if !yield(ev, err) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Message.Parts) == 0 || res.Message.Parts[0].Type != llm.PartText || !strings.HasPrefix(res.Message.Parts[0].Text, DemoLabel) {
		t.Errorf("the answer %+v does not begin with %q", res.Message.Parts, DemoLabel)
	}
	if pieces < 3 {
		t.Errorf("the text came in %d pieces, want it streamed", pieces)
	}
	return res
}

// call is the tool call of a demo answer.
func call(t *testing.T, res llm.Response) *llm.ToolCall {
	t.Helper()
	for _, p := range res.Message.Parts {
		if p.Type == llm.PartToolCall {
			return p.ToolCall
		}
	}
	return nil
}

func TestDemoModelCallsGreetFirst(t *testing.T) {
	res := demoTurn(t, &llm.Request{Tools: demoTools, Messages: []llm.Message{userSays(llm.TextPart("Hello!"))}})
	c := call(t, res)
	if c == nil || c.Name != "srv1__greet" || string(c.Arguments) != "{}" || res.StopReason != llm.StopToolUse {
		t.Errorf("answer %+v, call %+v: want greet called", res, c)
	}
}

func TestDemoModelEchoesWithoutGreet(t *testing.T) {
	res := demoTurn(t, &llm.Request{Tools: demoTools[:2], Messages: []llm.Message{userSays(llm.TextPart("Say this back"))}})
	c := call(t, res)
	var args map[string]string
	if c == nil || c.Name != "srv1__echo" || json.Unmarshal(c.Arguments, &args) != nil || args["text"] != "Say this back" {
		t.Errorf("call %+v: want echo with the person's text", c)
	}
}

func TestDemoModelAnswersWithTheToolsResult(t *testing.T) {
	req := &llm.Request{Tools: demoTools, Messages: []llm.Message{
		userSays(llm.TextPart("Hello!")),
		{Role: llm.Assistant, Parts: []llm.Part{llm.ToolCallPart(llm.ToolCall{ID: "c1", Name: "srv1__greet"})}},
		userSays(llm.ToolResultPart(llm.ToolResult{CallID: "c1", Parts: []llm.Part{llm.TextPart("Hello, Ann!")}})),
	}}
	res := demoTurn(t, req)
	if call(t, res) != nil || res.StopReason != llm.StopEndTurn || !strings.Contains(res.Message.Parts[0].Text, "Hello, Ann!") {
		t.Errorf("answer %+v: want the result's text, and no call", res)
	}
}

func TestDemoModelWithoutItsToolsSaysWhatItDoes(t *testing.T) {
	for _, req := range []*llm.Request{
		{Tools: demoTools[:1], Messages: []llm.Message{userSays(llm.TextPart("Hi"))}},
		{Tools: demoTools, ToolChoice: llm.ToolChoice{Mode: llm.ToolNone}, Messages: []llm.Message{userSays(llm.TextPart("Hi"))}},
	} {
		res := demoTurn(t, req)
		if call(t, res) != nil || !strings.Contains(res.Message.Parts[0].Text, "--demo") {
			t.Errorf("answer %+v: want no call and a word on what the demo model does", res)
		}
	}
}

func TestDemoModelStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []llm.Event
	var end error
	for ev, err := range (demoModel{pace: time.Hour}).Stream(ctx, &llm.Request{Messages: []llm.Message{userSays(llm.TextPart("Hi"))}}) {
		if err != nil {
			end = err
			break
		}
		got = append(got, ev)
		cancel()
	}
	if len(got) != 1 || end != context.Canceled {
		t.Errorf("after a cancel: %d events and %v, want one event and the context's error", len(got), end)
	}
}

func TestRegistryHandsOutTheDemoModel(t *testing.T) {
	r := newRegistry(t, []Spec{DemoSpec()}, Options{Keys: newMemKeys()})
	m, err := r.Model(t.Context(), "ann", DemoName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := llm.Collect(m.Stream(t.Context(), &llm.Request{Messages: []llm.Message{userSays(llm.TextPart("Hi"))}}))
	if err != nil || !strings.HasPrefix(res.Message.Parts[0].Text, DemoLabel) {
		t.Errorf("the registry's demo model answered %+v, %v", res, err)
	}
}
