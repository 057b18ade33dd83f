package wire

import (
	"encoding/json"
	"testing"
)

func change(t *testing.T, kind ChangeKind, server, key string, v any) Change {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return Change{Kind: kind, Server: server, Key: key, Value: b}
}

func TestApplyPutsReplacesAndRemoves(t *testing.T) {
	var s Snapshot
	steps := []Change{
		change(t, KindServer, "s1", "s1", Server{ID: "s1", Name: "one", State: StateConnecting}),
		change(t, KindTool, "s1", "a", Tool{Name: "a"}),
		change(t, KindTool, "s1", "b", Tool{Name: "b"}),
		change(t, KindTool, "s1", "a", Tool{Name: "a", Description: "new"}),
		change(t, KindServer, "s1", "s1", Server{ID: "s1", Name: "one", State: StateReady}),
		{Kind: KindTool, Server: "s1", Key: "b", Remove: true},
		change(t, KindPrompt, "s1", "p", Prompt{Name: "p"}),
		change(t, KindResource, "s1", "r://x", Resource{URI: "r://x", Name: "x"}),
		change(t, KindTemplate, "s1", "r://{y}", ResourceTemplate{URITemplate: "r://{y}", Name: "y"}),
		change(t, KindAsk, "s1", "k1", Ask{ID: "k1", Server: "s1", Kind: AskForm}),
		change(t, KindSubscription, "s1", "r://x", Subscription{URI: "r://x"}),
		change(t, KindSubscription, "s1", "r://x", Subscription{URI: "r://x", Updated: "2026-01-02T03:04:05.000Z"}),
	}
	for _, c := range steps {
		if err := s.Apply(c); err != nil {
			t.Fatalf("apply %+v: %v", c, err)
		}
	}
	srv := s.ServerByID("s1")
	if srv == nil || srv.State != StateReady {
		t.Fatalf("server %+v", srv)
	}
	if len(srv.Tools) != 1 || srv.Tools[0].Description != "new" {
		t.Errorf("a server put must keep the lists and a tool put must replace: %+v", srv.Tools)
	}
	if len(srv.Subscriptions) != 1 || srv.Subscriptions[0].Updated == "" {
		t.Errorf("a subscription put must survive the server put and be replaced: %+v", srv.Subscriptions)
	}
	if len(srv.Prompts) != 1 || len(srv.Resources) != 1 || len(srv.Templates) != 1 || len(s.Asks) != 1 {
		t.Errorf("lists %+v, asks %+v", srv, s.Asks)
	}
	if err := s.Apply(Change{Kind: KindServer, Server: "s1", Key: "s1", Remove: true}); err != nil {
		t.Fatal(err)
	}
	if len(s.Servers) != 0 || len(s.Asks) != 0 {
		t.Errorf("removing a server left %+v and asks %+v", s.Servers, s.Asks)
	}
}

func TestApplyRefusesChangesItCannotPlace(t *testing.T) {
	var s Snapshot
	for _, c := range []Change{
		change(t, KindTool, "ghost", "a", Tool{Name: "a"}),
		{Kind: KindServer, Server: "s1", Key: "s1", Value: json.RawMessage(`not json`)},
	} {
		if err := s.Apply(c); err == nil {
			t.Errorf("Apply(%+v) succeeded", c)
		}
	}
	s.Servers = []Server{{ID: "s1"}}
	if err := s.Apply(Change{Kind: "gadget", Server: "s1", Key: "x"}); err == nil {
		t.Error("unknown kind applied")
	}
}

func TestApplyDoesNotAliasAnEarlierCopy(t *testing.T) {
	s := Snapshot{Servers: []Server{{ID: "s1", Tools: []Tool{{Name: "a"}, {Name: "b"}, {Name: "c"}}}}}
	before := s.Servers[0].Tools
	if err := s.Apply(Change{Kind: KindTool, Server: "s1", Key: "a", Remove: true}); err != nil {
		t.Fatal(err)
	}
	if before[0].Name != "a" || before[1].Name != "b" {
		t.Fatalf("removing rewrote the earlier list: %+v", before)
	}
}
