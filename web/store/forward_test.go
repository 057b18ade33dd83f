package store

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func samplingAsk(id string) wire.Ask {
	return wire.Ask{ID: id, Server: "s1", ServerName: "alpha", Kind: wire.AskSampling, From: wire.AskFromSampling,
		State: wire.AskPending, Agent: "Claude", Forward: true, Sampling: &wire.SamplingRequest{MaxTokens: 10}}
}

func TestForwardedAskLeavesWithoutANotice(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(samplingAsk("a1")))
	c.ForwardAsk("a1")
	var args wire.AskArgs
	f := opFrame(t, s, wire.OpForwardAsk, &args)
	if args.Ask != "a1" {
		t.Fatalf("forward args = %+v", args)
	}
	if st := c.View().AskStatus["a1"]; st.Sending != AskForward {
		t.Errorf("status while forwarding = %+v", st)
	}
	s.delta(2, askRemoval(samplingAsk("a1"))) // the relay settles the ask, then replies
	s.result(f.ID, struct{}{})
	if v := c.View(); len(v.Departed) != 0 || len(v.AskStatus) != 0 {
		t.Errorf("departed %+v status %+v, want none", v.Departed, v.AskStatus)
	}
}

func TestFailedForwardIsShownOnTheAsk(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, withAsks(samplingAsk("a1")))
	c.ForwardAsk("a1")
	s.recv(wire.ErrorFrame(s.lastFrame().ID, wire.NewError(wire.CodeUpstream, "the agent's client did not answer: no")))
	v := c.View()
	if st := v.AskStatus["a1"]; st.Sending != "" || st.Err == nil || st.Err.Code != wire.CodeUpstream {
		t.Fatalf("status = %+v, want the upstream error", st)
	}
	if len(v.Snapshot.Asks) != 1 || len(v.Departed) != 0 {
		t.Errorf("asks %v departed %+v: the ask should stay", askIDs(v), v.Departed)
	}
}
