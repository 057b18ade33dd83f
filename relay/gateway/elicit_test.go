package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// dashboard is a person's dashboard: it mirrors the user's state.
type dashboard struct {
	t     testing.TB
	sub   *session.Subscriber
	state wire.Snapshot
	ops   int
}

func (r *relay) dashboard(user string) *dashboard {
	d := &dashboard{t: r.t, sub: r.m.Session(user).Subscribe(wire.Hello{})}
	r.t.Cleanup(d.sub.Close)
	return d
}

// until applies frames until ok holds.
func (d *dashboard) until(what string, ok func() bool) {
	d.t.Helper()
	deadline := time.After(waitFor)
	for !ok() {
		var b []byte
		select {
		case b = <-d.sub.Outbox():
		case <-deadline:
			d.t.Fatalf("not within %v: %s", waitFor, what)
		}
		fr, err := wire.Decode(b)
		if err != nil {
			d.t.Fatal(err)
		}
		switch fr.Type {
		case wire.TypeSnapshot:
			d.state = wire.Snapshot{}
			json.Unmarshal(fr.Data, &d.state)
		case wire.TypeDelta:
			var delta wire.Delta
			json.Unmarshal(fr.Data, &delta)
			for _, c := range delta.Changes {
				if err := d.state.Apply(c); err != nil {
					d.t.Fatal(err)
				}
			}
		}
	}
}

// ask waits for an ask and returns it.
func (d *dashboard) ask() wire.Ask {
	d.t.Helper()
	d.until("an ask", func() bool { return len(d.state.Asks) > 0 })
	return d.state.Asks[0]
}

// settled waits until no ask is shown.
func (d *dashboard) settled() {
	d.t.Helper()
	d.until("no ask", func() bool { return len(d.state.Asks) == 0 })
}

// answer answers an ask.
func (d *dashboard) answer(ask string, action wire.Action, content map[string]any) {
	d.t.Helper()
	d.ops++
	fr, err := wire.Op("answer-"+string(rune('0'+d.ops)), wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask, Action: action, Content: content})
	if err != nil {
		d.t.Fatal(err)
	}
	d.sub.HandleOp(fr)
}

// callAsync calls tool with a progress token; the result arrives on the channel.
func (a *agent) callAsync(ctx context.Context, tool string) <-chan *mcp.CallToolResult {
	out := make(chan *mcp.CallToolResult, 1)
	go func() {
		p := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
		p.SetProgressToken("t1")
		res, err := a.cs.CallTool(ctx, p)
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "error: " + err.Error()}}}
		}
		out <- res
	}()
	return out
}

func TestAgentsQuestionGoesToThePersonLabelled(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			fx := elicitfixture.Start(t, elicitfixture.Options{})
			id := r.add("alice", "asks", fx.URL())
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			d := r.dashboard("alice")
			form := elicitfixture.Forms[0]

			done := a.callAsync(context.Background(), id+"__form_"+form.Name)
			ask := d.ask()
			if ask.Agent != "Claude" || ask.Tool != "form_"+form.Name || ask.Kind != wire.AskForm || ask.Call == "" {
				t.Errorf("ask labelled agent %q tool %q call %q kind %q", ask.Agent, ask.Tool, ask.Call, ask.Kind)
			}
			select {
			case p := <-a.progress:
				if p.Message != "waiting for a person in Switchboard" {
					t.Errorf("progress while waiting: %+v", p)
				}
			case <-time.After(waitFor):
				t.Error("the agent heard nothing while a person was asked")
			}
			d.answer(ask.ID, wire.ActionAccept, form.Example)
			res := <-done
			out, err := elicitfixture.ParseOutcome(text(res))
			if err != nil || out.Action != wire.ActionAccept {
				t.Fatalf("the agent's result: %s (%v)", text(res), err)
			}

			// A URL: the person consents; the agent never sees it.
			d.settled()
			done = a.callAsync(context.Background(), id+"__url_consent")
			ask = d.ask()
			if ask.Kind != wire.AskURL || ask.Agent != "Claude" || ask.Tool != "url_consent" {
				t.Errorf("url ask %+v", ask)
			}
			if !strings.HasPrefix(ask.URL, "http://127.0.0.1") {
				t.Fatalf("url ask without its URL: %+v", ask)
			}
			d.answer(ask.ID, wire.ActionAccept, nil)
			if out, _ := elicitfixture.ParseOutcome(text(<-done)); out.Action != wire.ActionAccept {
				t.Errorf("url_consent outcome %+v", out)
			}

			// A -32042 URL requirement: the person opens it; the call is retried.
			if err := fx.Complete(context.Background(), ask.ElicitationID); err != nil {
				t.Fatal(err)
			}
			d.settled()
			done = a.callAsync(context.Background(), id+"__url_required")
			req := d.ask()
			if req.From != wire.AskFromURLRequired || req.Agent != "Claude" || req.Tool != "url_required" {
				t.Errorf("url_required ask %+v", req)
			}
			d.answer(req.ID, wire.ActionAccept, nil)
			if err := fx.Complete(context.Background(), elicitfixture.SetupID); err != nil {
				t.Fatal(err)
			}
			if res := <-done; res.IsError || text(res) != elicitfixture.SetupDone {
				t.Errorf("url_required result %s", text(res))
			}

			got := a.wire.received()
			for _, secret := range []string{"Invite code", form.Message, "Sign in to Example", ask.URL, req.URL, "/complete?id="} {
				if strings.Contains(got, secret) {
					t.Errorf("the agent received %q", secret)
				}
			}
			recs := r.recs.all()
			if len(recs) != 3 || !recs[0].Asked || !recs[1].Asked || !recs[2].Asked {
				t.Errorf("records %+v", recs)
			}
		})
	}
}

func TestUnansweredQuestionIsAToolError(t *testing.T) {
	r := newRelay(t, broker.Config{Timeout: 300 * time.Millisecond})
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	id := r.add("alice", "asks", fx.URL())
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[0])
	res := <-a.callAsync(context.Background(), id+"__form_boolean")
	if !res.IsError || !strings.Contains(text(res), "nobody answered") {
		t.Errorf("unanswered: %s (isError %v)", text(res), res.IsError)
	}
	if recs := r.recs.all(); len(recs) != 1 || recs[0].Outcome != wire.OutcomeTimedOut {
		t.Errorf("records %+v", recs)
	}
}

func TestCancellingACallWithdrawsItsQuestion(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			fx := elicitfixture.Start(t, elicitfixture.Options{})
			id := r.add("alice", "asks", fx.URL())
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			a := r.connect("k1", gateway.Path, era)
			d := r.dashboard("alice")
			ctx, cancel := context.WithCancel(context.Background())
			done := a.callAsync(ctx, id+"__form_numbers")
			d.ask()
			cancel()
			<-done
			d.until("the ask withdrawn", func() bool { return len(d.state.Asks) == 0 })
		})
	}
}

func TestCancellingADashboardCallWithdrawsItsQuestion(t *testing.T) {
	r := newRelay(t, broker.Config{})
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	id := r.add("alice", "asks", fx.URL())
	d := r.dashboard("alice")
	fr, _ := wire.Op("call-1", wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "form_numbers"})
	d.sub.HandleOp(fr)
	d.ask()
	fr, _ = wire.Op("cancel-1", wire.OpCancel, wire.CancelArgs{ID: "call-1"})
	d.sub.HandleOp(fr)
	d.until("the ask withdrawn", func() bool { return len(d.state.Asks) == 0 })
}

func TestConcurrentCallsAskUnderTheirOwnLabels(t *testing.T) {
	r := newRelay(t, broker.Config{})
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	id := r.add("alice", "asks", fx.URL())
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	r.keys.put("k2", agentkeys.Grant{User: "alice", Agent: "Cursor", KeyID: "key2"})
	a := r.connect("k1", gateway.Path, eras[0])
	b := r.connect("k2", gateway.Path, eras[0])
	d := r.dashboard("alice")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // withdraws both, before the fixture stops
	a.callAsync(ctx, id+"__form_strings")
	b.callAsync(ctx, id+"__form_numbers")
	d.until("two asks", func() bool { return len(d.state.Asks) == 2 })
	for _, ask := range d.state.Asks {
		want := map[string]string{"form_strings": "Claude", "form_numbers": "Cursor"}[ask.Tool]
		if want == "" || ask.Agent != want {
			t.Errorf("ask for %q labelled with agent %q", ask.Tool, ask.Agent)
		}
	}
}
