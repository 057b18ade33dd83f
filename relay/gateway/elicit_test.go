package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

// dashboard is a person's dashboard: the dashboard's own client store,
// attached to the user's session as the relay's socket attaches it.
type dashboard struct {
	*storetest.Dashboard
	t testing.TB
}

// dashboard attaches a dashboard to user's session and waits until it is live.
func (r *relay) dashboard(user string) *dashboard {
	r.t.Helper()
	subscribe := func(h wire.Hello) storetest.Subscription { return r.m.Session(user).Subscribe(h) }
	return &dashboard{storetest.Connect(r.t, storetest.Config{Dial: storetest.InProcess(subscribe), Timeout: waitFor}), r.t}
}

// ask waits for an ask and returns it.
func (d *dashboard) ask() wire.Ask {
	d.t.Helper()
	return d.Until("an ask", func(v store.View) bool { return len(v.Snapshot.Asks) > 0 }).Snapshot.Asks[0]
}

// settled waits until no ask is shown.
func (d *dashboard) settled() {
	d.t.Helper()
	d.Until("no ask", noAsk)
}

// noAsk reports whether v shows no ask.
func noAsk(v store.View) bool { return len(v.Snapshot.Asks) == 0 }

// answer answers an ask and fails unless the answer is taken.
func (d *dashboard) answer(ask string, action wire.Action, content map[string]any) {
	d.t.Helper()
	if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask, Action: action, Content: content}); rep.Err != nil {
		d.t.Fatalf("answer %s to %s: %+v", action, ask, rep.Err)
	}
}

// callAsync calls tool with a progress token; the result arrives on the channel.
func (a *agent) callAsync(ctx context.Context, tool string) <-chan *mcp.CallToolResult {
	return a.callAsyncWith(ctx, tool, map[string]any{})
}

// callAsyncWith is callAsync with arguments.
func (a *agent) callAsyncWith(ctx context.Context, tool string, args map[string]any) <-chan *mcp.CallToolResult {
	out := make(chan *mcp.CallToolResult, 1)
	go func() {
		p := &mcp.CallToolParams{Name: tool, Arguments: args}
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
			d.Until("the ask withdrawn", noAsk)
		})
	}
}

func TestCancellingADashboardCallWithdrawsItsQuestion(t *testing.T) {
	r := newRelay(t, broker.Config{})
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	id := r.add("alice", "asks", fx.URL())
	d := r.dashboard("alice")
	call := d.Send(wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "form_numbers"})
	d.ask()
	d.Send(wire.OpCancel, wire.CancelArgs{ID: call.ID})
	d.Until("the ask withdrawn", noAsk)
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
	v := d.Until("two asks", func(v store.View) bool { return len(v.Snapshot.Asks) == 2 })
	for _, ask := range v.Snapshot.Asks {
		want := map[string]string{"form_strings": "Claude", "form_numbers": "Cursor"}[ask.Tool]
		if want == "" || ask.Agent != want {
			t.Errorf("ask for %q labelled with agent %q", ask.Tool, ask.Agent)
		}
	}
}
