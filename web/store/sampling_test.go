package store

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestAnswerSamplingSendsTheReply(t *testing.T) {
	r, c := newRelay(t)
	a := formAsk("a1")
	a.Kind, a.Schema = wire.AskSampling, nil
	a.Sampling = &wire.SamplingRequest{MaxTokens: 10}
	s := connect(t, r, c, 1, withAsks(a))
	c.AnswerSampling("a1", &wire.SamplingResult{Model: "me", Content: []wire.SamplingContent{{Type: wire.ContentText, Text: "hi"}}})

	var args wire.AnswerAskArgs
	f := opFrame(t, s, wire.OpAnswerAsk, &args)
	if args.Ask != "a1" || args.Action != wire.ActionAccept || args.Sampling == nil || args.Sampling.Content[0].Text != "hi" || args.Content != nil {
		t.Fatalf("answer args = %+v", args)
	}
	if st := c.View().AskStatus["a1"]; st.Sending != string(wire.ActionAccept) {
		t.Fatalf("status while sending = %+v", st)
	}
	s.delta(2, askRemoval(a))
	s.result(f.ID, struct{}{})
	if v := c.View(); len(v.Snapshot.Asks) != 0 || len(v.Departed) != 0 {
		t.Errorf("after its own answer: asks %+v departed %+v, want none", v.Snapshot.Asks, v.Departed)
	}
}
