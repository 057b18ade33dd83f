package broker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// forwardable is a sampling ask offered for forwarding to agent Claude.
func forwardable(a wire.Ask) wire.Ask {
	a.Agent, a.Forward = "Claude", true
	return a
}

func TestForwardAnswersWithTheAgentsReply(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	started, release := make(chan struct{}), make(chan struct{})
	calls := 0
	fwd := Forward(func(context.Context) (wire.SamplingResult, error) {
		calls++
		close(started)
		<-release
		return *textReply("from the agent"), nil
	})
	done := ask(WithForward(context.Background(), fwd), b, forwardable(samplingAsk("")))
	a := s.nextPut(t)
	if !a.Forward {
		t.Fatal("the ask is not shown as forwardable")
	}
	first := make(chan error, 1)
	go func() { _, err := b.Forward(context.Background(), a.ID); first <- err }()
	<-started
	if _, err := b.Forward(context.Background(), a.ID); err != errForwarding {
		t.Errorf("a second forward while the first runs: %v", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	r := await(t, done)
	if r.err != nil || r.ans.Sampling == nil || r.ans.Sampling.Content[0].Text != "from the agent" || r.ans.Sampling.Model != "Claude" {
		t.Fatalf("Ask = %+v, %v; want the agent's reply, its model named after the agent", r.ans.Sampling, r.err)
	}
	if calls != 1 {
		t.Errorf("the agent was asked %d times", calls)
	}
}

func TestForwardedReplyIsCheckedAndAFailureKeepsTheAsk(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	bad := wire.SamplingResult{Content: []wire.SamplingContent{{Type: wire.ContentToolUse, Name: "launch", Input: json.RawMessage(`{}`)}}}
	fwd := Forward(func(context.Context) (wire.SamplingResult, error) { return bad, nil })
	done := ask(WithForward(context.Background(), fwd), b, forwardable(samplingAsk("", weatherTool)))
	a := s.nextPut(t)
	if _, err := b.Forward(context.Background(), a.ID); wireCode(err) != wire.CodeUpstream {
		t.Fatalf("a reply calling a tool not offered: %v, want upstream", err)
	}
	if _, ok := b.Get(a.ID); !ok {
		t.Fatal("the ask went with the failed forward")
	}
	if err := b.Answer(wire.AnswerAskArgs{Ask: a.ID, Action: wire.ActionAccept, Sampling: textReply("the person's")}); err != nil {
		t.Fatal(err)
	}
	if r := await(t, done); r.err != nil || r.ans.Sampling.Content[0].Text != "the person's" {
		t.Errorf("Ask = %+v, %v", r.ans, r.err)
	}
}

func TestForwardNeedsAForwarder(t *testing.T) {
	s := newSink()
	b := New(s, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ask(ctx, b, forwardable(samplingAsk(""))) // Forward set, but no forwarder
	a := s.nextPut(t)
	if a.Forward {
		t.Error("an ask without a forwarder is shown as forwardable")
	}
	if _, err := b.Forward(context.Background(), a.ID); err != errNotForwardable {
		t.Errorf("forward without a forwarder: %v", err)
	}
	if _, err := b.Forward(context.Background(), "nope"); wireCode(err) != wire.CodeNotFound {
		t.Errorf("forward of an unknown ask: %v", err)
	}
}
