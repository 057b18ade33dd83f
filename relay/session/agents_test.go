package session

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// deltaOf decodes the delta in frame f.
func deltaOf(t *testing.T, f wire.Frame) wire.Delta {
	t.Helper()
	var d wire.Delta
	if f.Type != wire.TypeDelta || json.Unmarshal(f.Data, &d) != nil {
		t.Fatalf("frame %+v is not a delta", f)
	}
	return d
}

// agentCall calls the tool t of server id of s for the agent bot.
func agentCall(t *testing.T, s *Session, id string) {
	t.Helper()
	c := Caller{Agent: &Agent{Name: "bot", KeyID: "k1", Label: "1"}}
	if _, err := owner(t, s, id).CallTool(context.Background(), c, &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}
}

// withLog is a fixture whose agents' calls the log keeps.
func withLog(log *memLog) func(*Config) { return func(c *Config) { c.Activity = log } }

func TestAgentCallsInStateAreBoundedAndProportional(t *testing.T) {
	f := newFixtureWith(t, t.TempDir(), withLog(&memLog{}))
	s := f.m.Session("alice")
	id := addServer(t, s, "s1", "http://127.0.0.1:9/mcp")
	for range wire.MaxLiveAgentCalls {
		agentCall(t, s, id)
	}
	d := openDashboard(t, s)
	if n := len(d.state().AgentCalls); n != wire.MaxLiveAgentCalls {
		t.Fatalf("snapshot has %d calls, want %d", n, wire.MaxLiveAgentCalls)
	}
	sub := s.Subscribe(wire.Hello{}) // the frames themselves
	snapshotOf(t, sub)
	agentCall(t, s, id)
	first, second := next(t, sub), next(t, sub)
	started, ended := deltaOf(t, first), deltaOf(t, second)
	if len(started.Changes) != 2 || started.Changes[0].Remove || !started.Changes[1].Remove || started.Changes[1].Key != "1" {
		t.Fatalf("start: %+v, want the running call and the oldest removed", started.Changes)
	}
	running := started.Changes[0].Key
	if len(ended.Changes) != 2 || !ended.Changes[0].Remove || ended.Changes[0].Key != running || ended.Changes[1].Key != "101" {
		t.Fatalf("end: %+v, want the running call replaced by call 101", ended.Changes)
	}
	mirror := d.at(second.Seq)
	now, _ := s.Snapshot()
	if len(mirror.AgentCalls) != len(now.AgentCalls) || mirror.AgentCalls[0].ID != "2" || mirror.AgentCalls[len(mirror.AgentCalls)-1].ID != "101" {
		t.Errorf("mirror after the deltas: %d calls from %s, want the session's %d from 2 to 101",
			len(mirror.AgentCalls), mirror.AgentCalls[0].ID, len(now.AgentCalls))
	}
}

func TestSyncFollowsRegistrationsMadeElsewhere(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	kept := addServer(t, s, "kept", "http://127.0.0.1:9/a")
	gone := addServer(t, s, "gone", "http://127.0.0.1:9/b")
	sub := s.Subscribe(wire.Hello{})
	snapshotOf(t, sub)

	// Another process (the CLI) writes the same data directory.
	other, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	added := store.Server{User: "alice", ID: "cafe00000001", Name: "added", URL: "http://127.0.0.1:9/c", Transport: string(wire.TransportStreamable), CreatedAt: time.Now()}
	if err := other.PutServer(context.Background(), added); err != nil {
		t.Fatal(err)
	}
	if err := other.DeleteServer(context.Background(), "alice", gone); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	var puts, removes []string
	for len(puts) == 0 || len(removes) == 0 {
		for _, c := range deltaOf(t, next(t, sub)).Changes {
			if c.Kind != wire.KindServer {
				continue
			}
			if c.Remove {
				removes = append(removes, c.Key)
			} else {
				puts = append(puts, c.Key)
			}
		}
	}
	if puts[0] != added.ID || removes[0] != gone {
		t.Errorf("put %v removed %v; want %s added and %s removed", puts, removes, added.ID, gone)
	}
	snap, _ := s.Snapshot()
	var ids []string
	for _, srv := range snap.Servers {
		ids = append(ids, srv.ID)
	}
	if len(ids) != 2 || ids[0] != kept || ids[1] != added.ID {
		t.Errorf("servers %v, want [%s %s]", ids, kept, added.ID)
	}
	if f.conn(added.ID) == nil {
		t.Error("the added server was not connected")
	}
	if c := f.conn(gone); c == nil || !c.closed {
		t.Error("the removed server's connection was not closed")
	}
	// A second sync with nothing new changes nothing.
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRoots(context.Background(), []wire.Root{{URI: "file:///tmp", Name: "tmp"}}); err != nil {
		t.Fatal(err)
	}
	if d := deltaOf(t, next(t, sub)); d.Changes[0].Kind != wire.KindRoots {
		t.Errorf("a sync without changes sent %+v", d.Changes)
	}
}

func TestFinishedAgentCallReplacesTheRunningOneInOneDelta(t *testing.T) {
	log := &memLog{}
	f := newFixtureWith(t, t.TempDir(), withLog(log))
	s := f.m.Session("alice")
	id := addServer(t, s, "s1", "http://127.0.0.1:9/mcp")
	release := make(chan struct{})
	f.conn(id).call = func(context.Context, string) (*mcp.CallToolResult, error) {
		<-release
		return &mcp.CallToolResult{}, nil
	}
	sub := s.Subscribe(wire.Hello{})
	snapshotOf(t, sub)
	done := make(chan struct{})
	go func() { agentCall(t, s, id); close(done) }()
	d := deltaOf(t, next(t, sub))
	var a wire.AgentCall
	if len(d.Changes) != 1 || json.Unmarshal(d.Changes[0].Value, &a) != nil || a.ID != d.Changes[0].Key || a.Outcome != wire.OutcomeRunning || a.Agent != "bot" || a.Tool != "t" {
		t.Fatalf("start: %+v", d.Changes)
	}
	close(release)
	<-done
	d = deltaOf(t, next(t, sub))
	if len(d.Changes) != 2 || !d.Changes[0].Remove || d.Changes[0].Key != a.ID || d.Changes[1].Key != "1" {
		t.Fatalf("end: %+v, want the running call removed and call 1 put", d.Changes)
	}
	snap, _ := s.Snapshot()
	if len(snap.AgentCalls) != 1 || snap.AgentCalls[0].ID != "1" || snap.AgentCalls[0].Outcome != wire.OutcomeOK {
		t.Errorf("state holds %+v, want call 1 only, ok", snap.AgentCalls)
	}
	if len(log.calls) != 1 || log.calls[0].Server != id || log.calls[0].KeyID != "k1" {
		t.Errorf("the log kept %+v", log.calls)
	}
}

func TestAgentCallsAreNoServerChangeForWatchers(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	s1 := addServer(t, s, "s1", "http://127.0.0.1:9/mcp")
	var mu sync.Mutex
	heard := map[string]int{}
	stop := s.Watch(func(server string) { mu.Lock(); heard[server]++; mu.Unlock() })
	defer stop()
	agentCall(t, s, s1)
	id := addServer(t, s, "added", "http://127.0.0.1:9/other")
	mu.Lock()
	defer mu.Unlock()
	if heard[s1] != 0 {
		t.Errorf("an agent's call on s1 told the watchers %d times that s1 changed", heard[s1])
	}
	if heard[id] == 0 {
		t.Error("adding a server did not tell the watchers")
	}
}
