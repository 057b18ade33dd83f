package session

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func callState(snap wire.Snapshot, id string) wire.CallState {
	for _, c := range snap.Calls {
		if c.ID == id {
			return c.State
		}
	}
	return ""
}

func TestCallOutlivesItsDashboardAndAnotherCancelsIt(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	started := make(chan struct{})
	f.conn(id).call = func(ctx context.Context, name string) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, wire.NewError(wire.CodeCancelled, "cancelled")
	}
	first := openDashboard(t, s)
	first.Send(wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "block", Call: "call-1"})
	<-started
	first.Close() // the tab reloads: the call goes on

	second := openDashboard(t, s)
	second.until("call-1 running", func(s wire.Snapshot) bool { return callState(s, "call-1") == wire.CallRunning })

	second.Send(wire.OpCancelCall, wire.CallArgs{Call: "call-1"})
	snap := second.until("call-1 failed", func(s wire.Snapshot) bool { return callState(s, "call-1") == wire.CallFailed })
	if c := snap.Calls[0]; c.Error == nil || c.Error.Code != wire.CodeCancelled {
		t.Errorf("cancelled call = %+v, want a cancelled error", c)
	}
}

func TestFinishedCallKeepsItsResultAndOnlyTwentyAreKept(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	d := openDashboard(t, s)
	var snap wire.Snapshot
	for i := range wire.MaxCallsPerServer + 3 {
		if rep := d.Op(wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "t"}); rep.Err != nil {
			t.Fatalf("call %d: %+v", i+1, rep.Err)
		}
		want := min(i+1, wire.MaxCallsPerServer)
		snap = d.until(fmt.Sprintf("%d calls done", want), func(s wire.Snapshot) bool {
			done := 0
			for _, c := range s.Calls {
				if c.State == wire.CallDone {
					done++
				}
			}
			return done == want
		})
	}
	if len(snap.Calls) != wire.MaxCallsPerServer {
		t.Fatalf("calls kept = %d, want %d", len(snap.Calls), wire.MaxCallsPerServer)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(snap.Calls[0].Result, &res); err != nil || res.Content[0].Text != "ok" {
		t.Errorf("kept result = %s, %v; want the tool's text", snap.Calls[0].Result, err)
	}
}

// taskConn is a testConn whose tools run as tasks.
type taskConn struct {
	*testConn
	created chan struct{}                       // closed once the task of a call was recorded
	watch   func(id string) *mcp.CallToolResult // the result WatchTask gives
}

func (c *taskConn) TaskMode(string) (bool, error) { return true, nil }
func (c *taskConn) CallToolTask(ctx context.Context, _ *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams), created, status func(conn.Task)) (*mcp.CallToolResult, error) {
	created(conn.Task{ID: "t1", Status: wire.TaskWorking})
	close(c.created)
	<-ctx.Done()
	return nil, wire.NewError(wire.CodeCancelled, "cancelled")
}
func (c *taskConn) WatchTask(_ context.Context, id string, status func(conn.Task)) (*mcp.CallToolResult, error) {
	status(conn.Task{ID: id, Status: wire.TaskCompleted})
	return c.watch(id), nil
}
func (c *taskConn) CancelTask(context.Context, string) error { return nil }

// newTaskManager is a manager over dir whose connections are taskConns.
func newTaskManager(t *testing.T, dir string, watch func(string) *mcp.CallToolResult) (*Manager, *store.Store, chan struct{}) {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	created := make(chan struct{})
	m := NewManager(Config{Store: st, Dial: func(_ Dial, emit func(conn.State)) Connection {
		return &taskConn{testConn: &testConn{emit: emit}, created: created, watch: watch}
	}})
	return m, st, created
}

func TestTaskCallIsFollowedAgainAfterARestart(t *testing.T) {
	dir := t.TempDir()
	m, st, created := newTaskManager(t, dir, nil)
	s := m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	sub := s.Subscribe(wire.Hello{})
	fr, _ := wire.Op("op-1", wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "research", Call: "call-1"})
	sub.HandleOp(fr)
	<-created
	m.Close() // the relay stops: the task is not cancelled, its id stays stored
	st.Close()

	m2, st2, _ := newTaskManager(t, dir, func(task string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "resumed " + task}}}
	})
	t.Cleanup(func() { m2.Close(); st2.Close() })
	if err := m2.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap := openDashboard(t, m2.Session("alice")).until("call-1 done", func(s wire.Snapshot) bool {
		return callState(s, "call-1") == wire.CallDone
	})
	var res wire.CallToolResult
	if err := json.Unmarshal(snap.Calls[0].Result, &res); err != nil || res.Content[0].Text != "resumed t1" {
		t.Fatalf("resumed call = %+v", snap.Calls[0])
	}
	if tasks, err := st2.CallTasks(context.Background(), "alice", id); err != nil || len(tasks) != 0 {
		t.Errorf("stored tasks after the call ended = %+v, %v; want none", tasks, err)
	}
}

func TestServerRemovedElsewhereTakesItsCallsAndJournal(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	started := make(chan struct{})
	f.conn(id).call = func(ctx context.Context, name string) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, wire.NewError(wire.CodeCancelled, "cancelled")
	}
	sub := s.Subscribe(wire.Hello{})
	fr, _ := wire.Op("op-1", wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "block", Call: "call-1"})
	sub.HandleOp(fr)
	<-started
	owner(t, s, id).addLog(wire.LogEntry{Level: "info", Data: json.RawMessage(`"hello"`)})

	other, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.DeleteServer(context.Background(), "alice", id); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap, _ := s.Snapshot()
	if len(snap.Calls) != 0 {
		t.Errorf("calls after the server was removed elsewhere: %+v", snap.Calls)
	}
	// The call's context ended: its op is answered and it stops running.
	for fr := next(t, sub); fr.ID != "op-1"; fr = next(t, sub) {
	}
	s.mu.Lock()
	running, kept := s.running, s.servers[id] != nil
	s.mu.Unlock()
	if snap, _ := s.Snapshot(); kept || snap.JournalOf(id) != nil {
		t.Error("the removed server's owner or journal is kept")
	}
	if running != 0 {
		t.Errorf("%d calls still running on the removed server", running)
	}
}

func TestToolResultIsCheckedAgainstTheListedOutputSchema(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	c := f.conn(id)
	c.emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: []*mcp.Tool{
		{Name: "sum", OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)},
		{Name: "free"},
	}}})
	c.call = func(_ context.Context, name string) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}, StructuredContent: map[string]any{"sum": "five"}}, nil
	}
	out, err := runOp(t, s, wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "sum"})
	if err != nil {
		t.Fatal(err)
	}
	res := out.(*wire.CallToolResult)
	want := &wire.OutputCheck{Problems: []wire.SchemaProblem{{Path: "/sum", Reason: `type: five has type "string", want "number"`}}}
	if !reflect.DeepEqual(res.OutputCheck, want) || res.Content[0].Text != "sum" || string(res.StructuredContent) != `{"sum":"five"}` {
		t.Errorf("result %+v, check %+v; want it whole, with %+v", res, res.OutputCheck, want)
	}
	out, err = runOp(t, s, wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "free"})
	if err != nil || out.(*wire.CallToolResult).OutputCheck != nil {
		t.Errorf("a tool without an outputSchema: %+v, %v; want no check", out, err)
	}
}
