package session

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func (c *testConn) Capabilities() *mcp.ServerCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noCompletions {
		return &mcp.ServerCapabilities{}
	}
	return &mcp.ServerCapabilities{Completions: &mcp.CompletionCapabilities{}}
}

func (c *testConn) Complete(_ context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{p.Argument.Value + "-1", p.Context.Arguments["first"]}, HasMore: true}}, nil
}

func (c *testConn) Subscribe(_ context.Context, uri string) error {
	if uri == "refused://" {
		return wire.NewError(wire.CodeUpstream, "no")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.subs, uri) {
		c.subs = append(c.subs, uri)
	}
	return nil
}

func (c *testConn) Unsubscribe(_ context.Context, uri string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs = slices.DeleteFunc(c.subs, func(s string) bool { return s == uri })
}

func (c *testConn) subscribed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.subs)
}

func TestSubscriptionsSurviveARestartUntilUnsubscribed(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	other := addServer(t, s, "b", "http://127.0.0.1:9/b")
	for _, uri := range []string{"file:///one", "file:///two"} {
		if _, err := runOp(t, s, wire.OpSubscribe, wire.SubscribeArgs{Server: id, URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if _, err := runOp(t, s, wire.OpSubscribe, wire.SubscribeArgs{Server: id, URI: "refused://"}); codeOf(err) != wire.CodeUpstream {
		t.Fatalf("a refused subscription answered %v", err)
	}
	if got, _ := f.store.Subscriptions(context.Background(), "alice", id); !slices.Equal(got, []string{"file:///one", "file:///two"}) {
		t.Errorf("stored %q; a refused subscription must not be kept", got)
	}
	if _, err := runOp(t, s, wire.OpUnsubscribe, wire.SubscribeArgs{Server: id, URI: "file:///one"}); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	if got := f.conn(id).subscribed(); !slices.Equal(got, []string{"file:///two"}) {
		t.Errorf("the connection holds %q", got)
	}
	f.m.Close()
	f.store.Close()

	g := newFixture(t, dir)
	if err := g.m.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := g.conn(id).subscribed(); !slices.Equal(got, []string{"file:///two"}) {
		t.Errorf("after a restart the connection was given %q, want the one kept subscription", got)
	}
	if got := g.conn(other).subscribed(); len(got) != 0 {
		t.Errorf("another server was given %q", got)
	}
	gs := g.m.Session("alice")
	if err := gs.RemoveServer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got, err := g.store.Subscriptions(context.Background(), "alice", id); err != nil || len(got) != 0 {
		t.Errorf("removing the server left its subscriptions %q (%v)", got, err)
	}
}

func TestCompleteOpReachesTheConnection(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	out, err := runOp(t, s, wire.OpComplete, wire.CompleteArgs{
		Server: id, Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: "p"}, Argument: "second", Value: "ab",
		Context: map[string]string{"first": "ctx"},
	})
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
	res := out.(*wire.CompleteResult)
	if !slices.Equal(res.Values, []string{"ab-1", "ctx"}) || !res.HasMore {
		t.Errorf("result %+v", res)
	}
	if _, err := runOp(t, s, wire.OpComplete, wire.CompleteArgs{Server: "nope"}); codeOf(err) != wire.CodeNotFound {
		t.Errorf("a completion on an unknown server: %v", err)
	}
}

func TestSubscriptionChangesAreDeltas(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	sub := s.Subscribe(wire.Hello{})
	defer sub.Close()
	catchUp(t, sub)
	c := f.conn(id)
	c.emit(conn.State{State: wire.StateReady, Subscriptions: []wire.Subscription{{URI: "file:///x"}}})
	c.emit(conn.State{State: wire.StateReady, Subscriptions: []wire.Subscription{{URI: "file:///x", Updated: "2026-01-01T00:00:00.000Z"}}})
	var got []wire.Change
	for len(got) < 3 {
		fr := next(t, sub)
		var d wire.Delta
		if err := json.Unmarshal(fr.Data, &d); err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Changes...)
	}
	last := got[len(got)-1]
	var sv wire.Subscription
	if err := json.Unmarshal(last.Value, &sv); err != nil || last.Kind != wire.KindSubscription || sv.Updated == "" {
		t.Errorf("the update is %+v, want a subscription change with its time", last)
	}
	snap, _ := s.Snapshot()
	if subs := snap.Servers[0].Subscriptions; len(subs) != 1 || subs[0].Updated == "" {
		t.Errorf("the snapshot holds %+v", subs)
	}
}

func TestCompleteNeedsTheCapability(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	c := f.conn(id)
	c.mu.Lock()
	c.noCompletions = true
	c.mu.Unlock()
	_, err := runOp(t, s, wire.OpComplete, wire.CompleteArgs{Server: id, Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: "greet"}, Argument: "who"})
	if codeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), "does not offer completions") {
		t.Errorf("got %v, want bad_request", err)
	}
	_, err = runOp(t, s, wire.OpComplete, wire.CompleteArgs{Server: id, Ref: wire.CompleteRef{Type: "ref/other"}, Argument: "x"})
	if codeOf(err) != wire.CodeBadRequest {
		t.Errorf("a bad reference: %v", err)
	}
}
