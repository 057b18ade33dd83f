package broker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const citySchema = `{"type":"object","properties":{"city":{"type":"string","minLength":2}},"required":["city"]}`

func samplingAsk(toolChoice wire.ToolChoice, tools ...wire.Tool) wire.Ask {
	return wire.Ask{Server: "s1", ServerName: "one", Kind: wire.AskSampling, From: wire.AskFromSampling,
		Sampling: &wire.SamplingRequest{MaxTokens: 100, ToolChoice: toolChoice, Tools: tools,
			Messages: []wire.SamplingMessage{{Role: wire.RoleUser, Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "Weather?"}}}}}}
}

var weatherTool = wire.Tool{Name: "get_weather", InputSchema: json.RawMessage(citySchema)}

func textReply(s string) *wire.SamplingResult {
	return &wire.SamplingResult{Content: []wire.SamplingContent{{Type: wire.ContentText, Text: s}}}
}

func TestSamplingFirstAnswerWins(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	done := ask(context.Background(), b, samplingAsk(""))
	a := s.nextPut(t)
	if a.Sampling == nil || a.Sampling.Messages[0].Content[0].Text != "Weather?" {
		t.Fatalf("shown %+v", a)
	}
	if got, ok := b.Get(a.ID); !ok || got.Sampling == nil {
		t.Errorf("Get(%s) = %+v, %t", a.ID, got, ok)
	}
	if err := b.Answer(wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Sampling: textReply("Sunny.")}); err != nil {
		t.Fatal(err)
	}
	if err := b.Answer(wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionDecline}); wireCode(err) != wire.CodeNotFound {
		t.Errorf("second answer: %v, want not_found", err)
	}
	r := await(t, done)
	if r.err != nil || r.ans.Sampling == nil || r.ans.Sampling.Content[0].Text != "Sunny." {
		t.Fatalf("Ask = %+v, %v", r.ans, r.err)
	}
	if r.ans.Sampling.Model != DefaultAnswerModel || r.ans.Sampling.StopReason != wire.StopEndTurn {
		t.Errorf("model %q stop %q, want the defaults filled in", r.ans.Sampling.Model, r.ans.Sampling.StopReason)
	}
	if _, ok := b.Get(a.ID); ok {
		t.Error("a settled ask is still returned")
	}
}

func TestSamplingAtTheDeadlineIsAnError(t *testing.T) {
	s := newSink()
	b := New(s, Config{Timeout: 30 * time.Millisecond})
	done := ask(context.Background(), b, samplingAsk(""))
	id := s.nextPut(t).ID
	r := await(t, done)
	if wireCode(r.err) != wire.CodeCancelled || r.ans.Sampling != nil || r.ans.Action != "" {
		t.Fatalf("Ask = %+v, %v; want a cancelled error and no answer", r.ans, r.err)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
}

func TestSamplingNotShownIsAnError(t *testing.T) {
	s := newSink()
	s.refuse = true
	r := await(t, ask(context.Background(), New(s, Config{}), samplingAsk("")))
	if r.err == nil || r.ans.Action != "" {
		t.Fatalf("Ask = %+v, %v; want an error", r.ans, r.err)
	}
}

func TestSamplingWithdrawnWhenItsContextEnds(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := ask(ctx, b, samplingAsk(""))
	id := s.nextPut(t).ID
	cancel()
	if r := await(t, done); r.err != context.Canceled {
		t.Fatalf("Ask = %+v, %v; want context.Canceled", r.ans, r.err)
	}
	if gone := s.nextGone(t); gone != id {
		t.Errorf("removed %s, want %s", gone, id)
	}
}

func TestSamplingAnswerIsChecked(t *testing.T) {
	use := func(name, input string) *wire.SamplingResult {
		return &wire.SamplingResult{Content: []wire.SamplingContent{{Type: wire.ContentToolUse, Name: name, Input: json.RawMessage(input)}}}
	}
	tests := []struct {
		name   string
		ask    wire.Ask
		args   wire.AnswerAskArgs
		reason string // "" when accepted
	}{
		{"text", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: textReply("hi")}, ""},
		{"decline", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionDecline}, ""},
		{"accept without message", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept}, "needs a message"},
		{"empty text", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: textReply("  ")}, "empty"},
		{"form content", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept, Content: map[string]any{"x": "y"}, Sampling: textReply("hi")}, "not form content"},
		{"svg image", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: &wire.SamplingResult{
			Content: []wire.SamplingContent{{Type: wire.ContentImage, MIMEType: "image/svg+xml", Data: "PHN2Zz4="}}}}, "not accepted"},
		{"tool_result in an answer", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: &wire.SamplingResult{
			Content: []wire.SamplingContent{{Type: wire.ContentToolResult, ToolUseID: "x"}}}}, "not \"tool_result\""},
		{"tool call without tools", samplingAsk(""), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("get_weather", `{"city":"Paris"}`)}, "no tools"},
		{"tool call", samplingAsk("auto", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("get_weather", `{"city":"Paris"}`)}, ""},
		{"unknown tool", samplingAsk("auto", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("rm_rf", `{}`)}, "no tool \"rm_rf\""},
		{"arguments off schema", samplingAsk("auto", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("get_weather", `{"city":"P"}`)}, "do not fit its schema"},
		{"missing argument", samplingAsk("auto", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("get_weather", `{}`)}, "do not fit its schema"},
		{"arguments not an object", samplingAsk("auto", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("get_weather", `[1]`)}, "not a JSON object"},
		{"tool choice none", samplingAsk("none", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: use("get_weather", `{"city":"Paris"}`)}, "no tool calls"},
		{"tool choice required", samplingAsk("required", weatherTool), wire.AnswerAskArgs{Action: wire.ActionAccept, Sampling: textReply("no")}, "requires a tool call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink()
			b := New(s, Config{})
			done := ask(context.Background(), b, tt.ask)
			tt.args.Ask = s.nextPut(t).ID
			err := b.Answer(tt.args)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				r := await(t, done)
				if tt.name == "tool call" {
					c := r.ans.Sampling.Content[0]
					if r.ans.Sampling.StopReason != wire.StopToolUse || !strings.HasPrefix(c.ID, "toolu_") {
						t.Errorf("tool call answer %+v: want stop toolUse and an id", r.ans.Sampling)
					}
				}
				return
			}
			if wireCode(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("answer: %v, want a bad request saying %q", err, tt.reason)
			}
			if _, ok := b.Get(tt.args.Ask); !ok {
				t.Error("a refused answer settled the ask")
			}
		})
	}
}
