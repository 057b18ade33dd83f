package session

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// rootsOf returns what conn c was last given.
func rootsOf(c *testConn) []wire.Root {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.roots
}

// changesOf decodes a delta frame.
func changesOf(t *testing.T, f wire.Frame) []wire.Change {
	t.Helper()
	if f.Type != wire.TypeDelta {
		t.Fatalf("frame %s, want a delta", f.Type)
	}
	var d wire.Delta
	if err := json.Unmarshal(f.Data, &d); err != nil {
		t.Fatal(err)
	}
	return d.Changes
}

func TestRootsReachDashboardsAndServersButNotExcludedOnes(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	a := addServer(t, s, "a", "http://127.0.0.1:9/a")
	b := addServer(t, s, "b", "http://127.0.0.1:9/b")
	ctx := context.Background()
	if err := owner(t, s, b).ExcludeRoots(ctx, true); err != nil {
		t.Fatal(err)
	}
	d := openDashboard(t, s)
	sub := s.Subscribe(wire.Hello{}) // the frames themselves
	snapshotOf(t, sub)

	roots := []wire.Root{{URI: "file:///home/alice/code", Name: "Code"}, {URI: "file:///tmp"}}
	if err := s.SetRoots(ctx, roots); err != nil {
		t.Fatal(err)
	}
	fr := next(t, sub)
	changes := changesOf(t, fr)
	if len(changes) != 1 || changes[0].Kind != wire.KindRoots {
		t.Fatalf("changes %+v; want one roots change", changes)
	}
	if shown := d.at(fr.Seq).Roots; !reflect.DeepEqual(shown, roots) {
		t.Fatalf("roots shown = %+v; want %+v", shown, roots)
	}
	if got := rootsOf(f.conn(a)); !reflect.DeepEqual(got, roots) {
		t.Errorf("server a was offered %+v; want %+v", got, roots)
	}
	if got := rootsOf(f.conn(b)); len(got) != 0 {
		t.Errorf("excluded server b was offered %+v; want none", got)
	}

	if err := owner(t, s, b).ExcludeRoots(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := rootsOf(f.conn(b)); !reflect.DeepEqual(got, roots) {
		t.Errorf("server b, included again, was offered %+v; want %+v", got, roots)
	}
	changes = changesOf(t, next(t, sub))
	var meta wire.Server
	if len(changes) != 1 || json.Unmarshal(changes[0].Value, &meta) != nil || meta.ID != b || meta.RootsExcluded {
		t.Errorf("changes %+v; want server b's state, no longer excluded", changes)
	}
	if _, err := runOp(t, s, wire.OpExcludeRoots, wire.ExcludeRootsArgs{Server: "nope", Excluded: true}); wireCodeOf(err) != wire.CodeNotFound {
		t.Errorf("excluding an unknown server: %v; want not found", err)
	}
}

func wireCodeOf(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func TestRootsAreValidatedAndABadListLosesNothing(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	ctx := context.Background()
	good := []wire.Root{{URI: "file:///home/alice"}}
	if err := s.SetRoots(ctx, good); err != nil {
		t.Fatal(err)
	}
	many := make([]wire.Root, wire.MaxRoots+1)
	for i := range many {
		many[i] = wire.Root{URI: "file:///r/" + strings.Repeat("x", i+1)}
	}
	cases := []struct {
		name  string
		roots []wire.Root
		says  string
	}{
		{"another scheme", []wire.Root{{URI: "https://example.com/x"}}, "must start with file://"},
		{"a relative path", []wire.Root{{URI: "file:relative/dir"}}, "absolute"},
		{"a remote host", []wire.Root{{URI: "file://example.com/share"}}, "local path"},
		{"a query", []wire.Root{{URI: "file:///a?b=c"}}, "query"},
		{"a control character", []wire.Root{{URI: "file:///a\x07b"}}, "control characters"},
		{"an encoded control character", []wire.Root{{URI: "file:///a%00b"}}, "control characters"},
		{"a control character in the name", []wire.Root{{URI: "file:///a", Name: "a\nb"}}, "name contains control"},
		{"a long URI", []wire.Root{{URI: "file:///" + strings.Repeat("a", wire.MaxRootURI)}}, "longer than"},
		{"the same root twice", []wire.Root{{URI: "file:///a"}, {URI: "file:///a"}}, "listed twice"},
		{"too many roots", many, "at most 64 roots"},
		{"an empty URI", []wire.Root{{Name: "x"}}, "empty"},
	}
	for _, tc := range cases {
		err := s.SetRoots(ctx, tc.roots)
		if wireCodeOf(err) != wire.CodeBadRequest || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: err %v; want a bad request saying %q", tc.name, err, tc.says)
		}
	}
	if snap, _ := s.Snapshot(); !reflect.DeepEqual(snap.Roots, good) {
		t.Errorf("roots after refused edits = %+v; want %+v", snap.Roots, good)
	}
}

func TestRootsAndClientPrefsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	roots := []wire.Root{{URI: "file:///srv/data", Name: "Data"}}
	if err := s.SetRoots(ctx, roots); err != nil {
		t.Fatal(err)
	}
	if err := owner(t, s, id).SetLogLevel(ctx, wire.LevelWarning); err != nil {
		t.Fatal(err)
	}
	if err := owner(t, s, id).ExcludeRoots(ctx, true); err != nil {
		t.Fatal(err)
	}
	f.m.Close()
	f.store.Close()

	g := newFixture(t, dir)
	if err := g.m.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	snap, _ := g.m.Session("alice").Snapshot()
	if !reflect.DeepEqual(snap.Roots, roots) {
		t.Errorf("roots after restart = %+v; want %+v", snap.Roots, roots)
	}
	c := g.conn(id)
	if c == nil {
		t.Fatal("the server was not dialed again")
	}
	if c.feats.LogLevel != wire.LevelWarning || len(c.feats.Roots) != 0 {
		t.Errorf("dialed with level %q and roots %+v; want warning and none (excluded)", c.feats.LogLevel, c.feats.Roots)
	}
	c.emit(conn.State{State: wire.StateReady, Init: &mcp.InitializeResult{Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}}})
	snap, _ = g.m.Session("alice").Snapshot()
	if srv := snap.ServerByID(id); srv == nil || !srv.RootsExcluded || srv.Logging == nil || srv.Logging.Level != wire.LevelWarning {
		t.Errorf("server state after restart = %+v; want roots excluded and level warning", srv)
	}
}

func TestLogLevelIsCheckedAndPassedOn(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	ctx := context.Background()
	if err := owner(t, s, id).SetLogLevel(ctx, "verbose"); wireCodeOf(err) != wire.CodeBadRequest {
		t.Errorf("an unknown level: %v; want a bad request", err)
	}
	if err := owner(t, s, id).SetLogLevel(ctx, wire.LevelDebug); err != nil {
		t.Fatal(err)
	}
	c := f.conn(id)
	c.mu.Lock()
	level := c.level
	c.mu.Unlock()
	if level != wire.LevelDebug {
		t.Errorf("the connection's level is %q; want debug", level)
	}
}

func TestJournalIsBoundedAndItsDeltasRebuildIt(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	_, first := s.Snapshot() // the state the dashboard starts from, as nothing changes meanwhile
	d := openDashboard(t, s)
	j := f.conn(id).feats.Journal
	extra := 7
	for i := range wire.MaxLogs + extra {
		j.Log(wire.LevelInfo, &mcp.LoggingMessageParams{Level: "info", Data: "line " + string(rune('a'+i%26))})
	}
	j.Activity(wire.ActivityToolsChanged, "The list of tools changed.")
	owner(t, s, id).noteActivity(wire.ActivityProgress, "half\x00way")

	want, seq := s.Snapshot()
	jw := want.JournalOf(id)
	if jw == nil || len(jw.Logs) != wire.MaxLogs || jw.LogsDropped != uint64(extra) || jw.Logs[0].N != uint64(extra+1) {
		t.Fatalf("journal holds %d logs, %d dropped; want the last %d, %d dropped", len(jw.Logs), jw.LogsDropped, wire.MaxLogs, extra)
	}
	if len(jw.Activity) != 2 || jw.Activity[1].Text != "half way" {
		t.Errorf("activity = %+v; want the list change and the sanitized progress", jw.Activity)
	}
	// The snapshot holds lines still gathered for the flush; the deltas,
	// flush included, must rebuild it.
	d.until("the journal rebuilt from the deltas", func(mirror wire.Snapshot) bool {
		return reflect.DeepEqual(normalize(mirror), normalize(want))
	})
	_, now := s.Snapshot()
	if now <= seq {
		t.Errorf("seq %d after the flush; want more than %d", now, seq)
	}
	if frames := int(now - first); frames > (wire.MaxLogs+extra)/journalBatch+2 { // a frame per delta
		t.Errorf("%d log lines took %d frames; want them gathered", wire.MaxLogs+extra, frames)
	}

	// A snapshot taken while lines wait for the flush, plus the flush, holds each line once.
	j.Log(wire.LevelError, &mcp.LoggingMessageParams{Level: "error"})
	_, waiting := s.Snapshot()
	late := openDashboard(t, s)
	lateState := late.at(waiting + 1) // the flush is the next delta
	if got := lateState.JournalOf(id).Logs; len(got) != wire.MaxLogs || got[len(got)-1].Level != wire.LevelError || got[len(got)-2].N+1 != got[len(got)-1].N {
		t.Errorf("late dashboard's logs end %+v; want each line once", got[len(got)-2:])
	}

	checkJournalCleared(t, s, id, late)
}

// checkJournalCleared clears the logs of server id, checks that the
// clearing is one delta removing them and that the dashboard late sees them
// go and the activity stay, then removes the server and checks that its
// journal goes. No journal lines may be waiting for a flush.
func checkJournalCleared(t *testing.T, s *Session, id string, late *dashboard) {
	t.Helper()
	sub := s.Subscribe(wire.Hello{}) // the clearing's frame itself
	defer sub.Close()
	snapshotOf(t, sub)
	owner(t, s, id).clearJournal(wire.KindLog)
	fr := next(t, sub)
	changes := changesOf(t, fr)
	if len(changes) != 1 || !changes[0].Remove || changes[0].Kind != wire.KindLog {
		t.Fatalf("clearing sent %+v; want one removal of the logs", changes)
	}
	state := late.at(fr.Seq)
	if jl := state.JournalOf(id); len(jl.Logs) != 0 || len(jl.Activity) != 2 {
		t.Errorf("after clearing the logs: %d logs, %d activity; want none and 2", len(jl.Logs), len(jl.Activity))
	}
	if err := s.RemoveServer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if snap, _ := s.Snapshot(); len(snap.Journals) != 0 {
		t.Errorf("journals after removing the server: %+v", snap.Journals)
	}
}
