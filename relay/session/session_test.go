package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// testConn is a connection whose state the test sets by hand, so that the
// session's sequencing can be checked change by change. The connection's own
// behaviour is tested against real MCP servers in relay/conn.
type testConn struct {
	emit    func(conn.State)
	mu      sync.Mutex
	closed  bool
	retries int
	call    func(ctx context.Context, name string) (*mcp.CallToolResult, error)
	roots   []wire.Root   // as last set
	level   wire.LogLevel // as last set
	feats   ClientFeatures
	subs    []string // resources subscribed to, starting with those the dialer was given
	dial    Dial     // what the session handed the dialer
	// noCompletions: the server did not declare completions.
	noCompletions bool
}

func (c *testConn) CallTool(ctx context.Context, p *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	return c.call(ctx, p.Name)
}
func (c *testConn) TaskMode(string) (bool, error) { return false, nil }
func (c *testConn) CallToolTask(context.Context, *mcp.CallToolParams, func(*mcp.ProgressNotificationParams), func(conn.Task), func(conn.Task)) (*mcp.CallToolResult, error) {
	return nil, wire.NewError(wire.CodeBadRequest, "no tasks")
}
func (c *testConn) WatchTask(context.Context, string, func(conn.Task)) (*mcp.CallToolResult, error) {
	return nil, wire.NewError(wire.CodeBadRequest, "no tasks")
}
func (c *testConn) CancelTask(context.Context, string) error { return nil }
func (c *testConn) GetPrompt(context.Context, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return nil, wire.NewError(wire.CodeNotFound, "no prompts")
}
func (c *testConn) ReadResource(context.Context, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return nil, wire.NewError(wire.CodeNotFound, "no resources")
}
func (c *testConn) Ping(context.Context) (time.Duration, error) { return time.Millisecond, nil }
func (c *testConn) SetRoots(roots []wire.Root)                  { c.mu.Lock(); c.roots = roots; c.mu.Unlock() }
func (c *testConn) SetLogLevel(_ context.Context, level wire.LogLevel) error {
	c.mu.Lock()
	c.level = level
	c.mu.Unlock()
	return nil
}
func (c *testConn) Retry()                                            { c.mu.Lock(); c.retries++; c.mu.Unlock() }
func (c *testConn) HoldSubscription(context.Context, string) error    { return nil }
func (c *testConn) ReleaseSubscription(context.Context, string) error { return nil }
func (c *testConn) SetAgentLogLevel(context.Context, any, wire.LogLevel) error {
	return nil
}
func (c *testConn) ReleaseAgentLogLevel(context.Context, any) error { return nil }
func (c *testConn) OnResourceUpdated(func(string)) func()           { return func() {} }
func (c *testConn) OnLog(func(*mcp.LoggingMessageParams)) func()    { return func() {} }
func (c *testConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

type fixture struct {
	t     *testing.T
	store *store.Store
	m     *Manager
	mu    sync.Mutex
	conns map[string]*testConn
}

func newFixture(t *testing.T, dir string) *fixture {
	t.Helper()
	return newFixtureWith(t, dir, nil)
}

// newFixtureWith is newFixture with the manager's configuration changed by tweak.
func newFixtureWith(t *testing.T, dir string, tweak func(*Config)) *fixture {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, store: st, conns: map[string]*testConn{}}
	cfg := Config{Store: st, Dial: func(d Dial, emit func(conn.State)) Connection {
		reg, feats := d.Reg, d.Client
		c := &testConn{emit: emit, feats: feats, roots: feats.Roots, level: feats.LogLevel, call: func(context.Context, string) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		}, subs: d.Subscriptions, dial: d}
		f.mu.Lock()
		f.conns[reg.ID] = c
		f.mu.Unlock()
		return c
	}}
	if tweak != nil {
		tweak(&cfg)
	}
	f.m = NewManager(cfg)
	t.Cleanup(func() { f.m.Close(); st.Close() })
	return f
}

// owner returns the owner of s's server id.
func owner(t *testing.T, s *Session, id string) *Server {
	t.Helper()
	o, ok := s.Server(id)
	if !ok {
		t.Fatalf("no server %s", id)
	}
	return o
}

// memLog is an activity log in memory that numbers the calls it keeps, as
// the store does.
type memLog struct {
	mu    sync.Mutex
	calls []wire.AgentCall
}

// Append implements [ActivityLog].
func (l *memLog) Append(_ string, c wire.AgentCall, shown func(wire.AgentCall)) {
	l.mu.Lock()
	c.ID = fmt.Sprint(len(l.calls) + 1)
	l.calls = append(l.calls, c)
	l.mu.Unlock()
	shown(c)
}

func (f *fixture) conn(id string) *testConn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns[id]
}

// next reads the next frame of sub, failing the test after a second.
func next(t *testing.T, sub *Subscriber) wire.Frame {
	t.Helper()
	select {
	case b := <-sub.Outbox():
		f, err := wire.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return f
	case <-time.After(5 * time.Second):
		t.Fatal("no frame within 5s")
	}
	return wire.Frame{}
}

// catchUp reads the frames a new subscriber gets up to and including the
// synced frame, and returns them without it.
func catchUp(t *testing.T, sub *Subscriber) []wire.Frame {
	t.Helper()
	var frames []wire.Frame
	for {
		f := next(t, sub)
		if f.Type == wire.TypeSynced {
			return frames
		}
		frames = append(frames, f)
	}
}

// snapshotOf subscribes from scratch and returns the snapshot frame.
func snapshotOf(t *testing.T, sub *Subscriber) wire.Frame {
	t.Helper()
	frames := catchUp(t, sub)
	if len(frames) != 1 || frames[0].Type != wire.TypeSnapshot {
		t.Fatalf("catch-up %+v, want one snapshot", frames)
	}
	return frames[0]
}

func tools(n int, desc string) []*mcp.Tool {
	out := make([]*mcp.Tool, n)
	for i := range out {
		out[i] = &mcp.Tool{Name: fmt.Sprintf("tool%04d", i), Description: desc}
	}
	return out
}

func addServer(t *testing.T, s *Session, name, url string) string {
	t.Helper()
	res, err := s.AddServer(context.Background(), name, url)
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

func TestDeltaCarriesOnlyWhatChanged(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "big", "http://127.0.0.1:9/mcp")
	c := f.conn(id)
	all := tools(1000, "v1")
	c.emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: all}})

	sub := s.Subscribe(wire.Hello{})
	snap := snapshotOf(t, sub)
	changed := slices.Clone(all)
	changed[500] = &mcp.Tool{Name: all[500].Name, Description: "v2"}
	lists := &conn.Lists{Tools: changed}
	c.emit(conn.State{State: wire.StateReady, Lists: lists})
	d := next(t, sub)
	var delta wire.Delta
	if err := json.Unmarshal(d.Data, &delta); err != nil {
		t.Fatal(err)
	}
	if len(delta.Changes) != 1 || delta.Changes[0].Key != "tool0500" || d.Seq != snap.Seq+1 {
		t.Fatalf("delta seq %d with %d changes (%+v), want seq %d with one change to tool0500", d.Seq, len(delta.Changes), delta.Changes, snap.Seq+1)
	}
	if len(d.Data) > 1024 {
		t.Errorf("delta for one tool is %d bytes", len(d.Data))
	}
	// The same state again sends nothing: the next frame is the next real change.
	c.emit(conn.State{State: wire.StateReady, Lists: lists})
	c.emit(conn.State{State: wire.StateFailed, Error: "gone", Lists: lists})
	if d := next(t, sub); d.Seq != snap.Seq+2 {
		t.Fatalf("seq %d after an unchanged emit, want %d", d.Seq, snap.Seq+2)
	}
}

// A dashboard's mirror, its first snapshot plus the deltas that follow it
// (each the next in sequence, or its client resyncs and the test fails),
// equals the session's state.
func TestSnapshotPlusDeltasEqualsState(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	d := openDashboard(t, s)
	a := addServer(t, s, "a", "http://127.0.0.1:9/a")
	b := addServer(t, s, "b", "http://127.0.0.1:9/b")
	f.conn(a).emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: tools(3, "x"),
		Prompts:   []*mcp.Prompt{{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "q", Required: true}}}},
		Resources: []*mcp.Resource{{URI: "r://1", Name: "one"}},
		Templates: []*mcp.ResourceTemplate{{URITemplate: "r://{x}", Name: "t"}}}})
	f.conn(b).emit(conn.State{State: wire.StateFailed, Error: "refused"})
	f.conn(a).emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: tools(2, "y"), Resources: []*mcp.Resource{{URI: "r://2", Name: "two"}}}})
	if err := s.RemoveServer(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	want, seq := s.Snapshot()
	mirror := d.at(seq)
	if !reflect.DeepEqual(normalize(mirror), normalize(want)) {
		t.Fatalf("mirror after deltas:\n%+v\nwant:\n%+v", mirror, want)
	}
}

// normalize round-trips a snapshot through JSON so nil and empty lists compare equal.
func normalize(s wire.Snapshot) wire.Snapshot {
	b, _ := json.Marshal(s)
	var out wire.Snapshot
	json.Unmarshal(b, &out)
	return out
}

func TestReconnectResumesFromLastSequence(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	snap, seq := s.Snapshot()
	f.conn(id).emit(conn.State{State: wire.StateReady})
	f.conn(id).emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: tools(1, "")}})

	sub := s.Subscribe(wire.Hello{Epoch: snap.Epoch, Seq: seq})
	missed := catchUp(t, sub)
	if len(missed) != 2 {
		t.Fatalf("resume got %d frames, want the 2 missed deltas", len(missed))
	}
	for i, d := range missed {
		if want := seq + 1 + uint64(i); d.Type != wire.TypeDelta || d.Seq != want {
			t.Fatalf("got %s seq %d, want delta seq %d", d.Type, d.Seq, want)
		}
	}
	now := seq + 2
	upToDate := s.Subscribe(wire.Hello{Epoch: snap.Epoch, Seq: now})
	if frames := catchUp(t, upToDate); len(frames) != 0 {
		t.Fatalf("an up-to-date dashboard got %d frames before synced", len(frames))
	}
	snapshotOf(t, s.Subscribe(wire.Hello{Epoch: "another-epoch", Seq: seq}))
	snapshotOf(t, s.Subscribe(wire.Hello{Epoch: snap.Epoch, Seq: seq + 100}))
}

func TestSlowDashboardIsDisconnectedOthersKeepGoing(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	slow := s.Subscribe(wire.Hello{}) // never reads
	fast := s.Subscribe(wire.Hello{})
	snapshotOf(t, fast)
	for i := range outboxSize + 1 {
		f.conn(id).emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: tools(1, fmt.Sprint(i))}})
		if d := next(t, fast); d.Type != wire.TypeDelta {
			t.Fatalf("fast dashboard got %s, want delta", d.Type)
		}
	}
	select {
	case <-slow.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("slow dashboard was not disconnected")
	}
	if code, _ := slow.CloseStatus(); code != wire.CloseTooSlow {
		t.Fatalf("close code %d, want %d", code, wire.CloseTooSlow)
	}
	select {
	case <-fast.Done():
		t.Fatal("the reading dashboard was disconnected too")
	default:
	}
	f.conn(id).emit(conn.State{State: wire.StateFailed, Error: "after"})
	if d := next(t, fast); d.Type != wire.TypeDelta {
		t.Fatalf("fast dashboard got %s after the slow one left, want delta", d.Type)
	}
}

func TestOpIsAnsweredExactlyOnceAndCanBeCancelled(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	started := make(chan struct{})
	f.conn(id).call = func(ctx context.Context, name string) (*mcp.CallToolResult, error) {
		if name == "block" {
			close(started)
			<-ctx.Done()
			return nil, wire.NewError(wire.CodeCancelled, "cancelled")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi " + name}}}, nil
	}
	sub := s.Subscribe(wire.Hello{})
	snapshotOf(t, sub)

	op := func(opID string, name wire.OpName, args any) {
		fr, err := wire.Op(opID, name, args)
		if err != nil {
			t.Fatal(err)
		}
		sub.HandleOp(fr)
	}
	op("1", wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "block"})
	<-started
	op("1", wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "x"}) // duplicate id while running
	op("2", wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "bob"})
	op("3", wire.OpCancel, wire.CancelArgs{ID: "1"})
	op("4", wire.OpCallTool, wire.CallToolArgs{Server: "nope", Name: "x"})
	op("5", "no.such.op", struct{}{})

	answers := map[string][]wire.Frame{}
	for len(answers) < 5 || len(answers["1"]) < 2 {
		fr := next(t, sub)
		if fr.Type == wire.TypeDelta {
			continue // the calls changing in the state
		}
		answers[fr.ID] = append(answers[fr.ID], fr)
	}
	expectErr := func(id string, code wire.Code, fr wire.Frame) {
		t.Helper()
		if fr.Type != wire.TypeError || fr.Error == nil || fr.Error.Code != code {
			t.Errorf("op %s: got %s %+v, want error %s", id, fr.Type, fr.Error, code)
		}
	}
	// Op 1 gets two answers only because its id was reused: the duplicate is refused, the original cancelled.
	expectErr("1", wire.CodeBadRequest, answers["1"][0])
	expectErr("1", wire.CodeCancelled, answers["1"][1])
	if fr := answers["2"][0]; fr.Type != wire.TypeResult {
		t.Errorf("op 2: %s %+v", fr.Type, fr.Error)
	}
	if fr := answers["3"][0]; fr.Type != wire.TypeResult {
		t.Errorf("cancel op: %s %+v", fr.Type, fr.Error)
	}
	expectErr("4", wire.CodeNotFound, answers["4"][0])
	expectErr("5", wire.CodeUnknownOp, answers["5"][0])
	for id, frs := range answers {
		if id != "1" && len(frs) != 1 {
			t.Errorf("op %s answered %d times", id, len(frs))
		}
	}
}

func TestAddServerDeduplicatesByNameAndNormalizedURL(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	ctx := context.Background()
	first, err := s.AddServer(ctx, "docs", "http://Example.COM:80/mcp/")
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.AddServer(ctx, " docs ", "http://example.com/mcp")
	if err != nil || again.ID != first.ID || !again.Existing {
		t.Fatalf("same name and URL: %+v, %v; want existing %s", again, err, first.ID)
	}
	var we *wire.Error
	if _, err := s.AddServer(ctx, "docs", "http://example.com/other"); !errors.As(err, &we) || we.Code != wire.CodeBadRequest {
		t.Fatalf("same name, other URL: %v", err)
	}
	for _, bad := range []string{"ftp://example.com", "not a url", "javascript:alert(1)", ""} {
		if _, err := s.AddServer(ctx, "x", bad); !errors.As(err, &we) || we.Code != wire.CodeInvalidURL {
			t.Errorf("AddServer(%q) = %v, want invalid_url", bad, err)
		}
	}
	if _, err := s.AddServer(ctx, "bad\x1bname", "http://example.com"); !errors.As(err, &we) || we.Code != wire.CodeBadRequest {
		t.Errorf("control character in name: %v", err)
	}
	if snap, _ := s.Snapshot(); len(snap.Servers) != 1 {
		t.Fatalf("%d servers, want 1", len(snap.Servers))
	}
}

func TestRegistrationsSurviveARestartAndRemovalForgetsThem(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	keep := addServer(t, s, "keep", "http://127.0.0.1:9/keep")
	gone := addServer(t, s, "gone", "http://127.0.0.1:9/gone")
	addServer(t, f.m.Session("bob"), "bobs", "http://127.0.0.1:9/bob")
	if err := s.RemoveServer(context.Background(), gone); err != nil {
		t.Fatal(err)
	}
	if c := f.conn(gone); !c.closed {
		t.Error("removing a server did not close its connection")
	}
	f.m.Close()
	f.store.Close()

	g := newFixture(t, dir)
	if err := g.m.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap, _ := g.m.Session("alice").Snapshot()
	if len(snap.Servers) != 1 || snap.Servers[0].ID != keep || snap.Servers[0].State != wire.StateConnecting {
		t.Fatalf("alice after restart: %+v", snap.Servers)
	}
	if g.conn(keep) == nil {
		t.Fatal("restored server was not reconnected")
	}
	if snap, _ := g.m.Session("bob").Snapshot(); len(snap.Servers) != 1 || snap.Servers[0].Name != "bobs" {
		t.Fatalf("bob after restart: %+v", snap.Servers)
	}
}
