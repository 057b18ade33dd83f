package store

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func callChange(call wire.Call) wire.Change {
	b, _ := json.Marshal(call)
	return wire.Change{Kind: wire.KindCall, Server: call.Server, Key: call.ID, Value: b}
}

func TestCallOfAnotherTabShowsFromTheStateAndCancelsByCallID(t *testing.T) {
	r, c := newRelay(t)
	snap := twoServers()
	snap.Calls = []wire.Call{{ID: "other.op-1", Server: "s1", Kind: wire.CallKindTool, Name: "slow", State: wire.CallRunning,
		Task: &wire.CallTask{ID: "t1", Status: wire.TaskWorking, StatusMessage: "step 1"}, Started: time.Unix(1, 0)}}
	s := connect(t, r, c, 1, snap)
	calls := c.View().CallsTo("s1", wire.CallKindTool)
	if len(calls) != 1 || !calls[0].Elsewhere || calls[0].Status != CallPending || calls[0].Task.StatusMessage != "step 1" {
		t.Fatalf("calls = %+v", calls)
	}
	c.Cancel("other.op-1")
	f := s.lastFrame()
	var args wire.CallArgs
	if f.Op != wire.OpCancelCall || json.Unmarshal(f.Data, &args) != nil || args.Call != "other.op-1" {
		t.Fatalf("cancel frame = %+v", f)
	}
	res, _ := json.Marshal(wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "done!"}}})
	done := snap.Calls[0]
	done.State, done.Result = wire.CallDone, res
	s.delta(2, callChange(done))
	if call := c.View().Calls[0]; call.Status != CallOK || call.Text != "done!" {
		t.Fatalf("finished call = %+v", call)
	}
}

func TestOwnCallIsListedOnceWhenTheStateHasIt(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	id := c.CallTool("s1", "echo", json.RawMessage(`{}`))
	var args wire.CallToolArgs
	json.Unmarshal(s.lastFrame().Data, &args)
	if args.Call == "" {
		t.Fatal("the call has no id for the state")
	}
	s.delta(2, callChange(wire.Call{ID: args.Call, Server: "s1", Kind: wire.CallKindTool, Name: "echo", State: wire.CallRunning,
		Progress: &wire.Progress{Progress: 1, Total: 2}}))
	calls := c.View().Calls
	if len(calls) != 1 || calls[0].ID != id || calls[0].Progress == nil || calls[0].Elsewhere {
		t.Fatalf("calls = %+v, want this tab's call once, with the state's progress", calls)
	}
}

func TestOwnCallThisTabDroppedIsNotShownAsAnotherTabs(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	res, _ := json.Marshal(wire.ReadResourceResult{Contents: []wire.ResourceContents{{URI: "x://clock", Text: "tick 0"}}})
	// A read this tab made and dropped when the resource changed and it read it again.
	s.delta(2, callChange(wire.Call{ID: c.tab + ".op-old", Server: "s1", Kind: wire.CallKindResource, Name: "x://clock",
		State: wire.CallDone, Result: res}))
	if calls := c.View().Calls; len(calls) != 0 {
		t.Fatalf("calls = %+v, want none: the dropped read is not another tab's", calls)
	}
}

func TestOwnCallsStayNewestFirstWhenTheStateNoLongerListsTheOlder(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	older := c.CallTool("s1", "echo", json.RawMessage(`{}`))
	newer := c.CallTool("s1", "echo", json.RawMessage(`{}`))
	var args wire.CallToolArgs
	json.Unmarshal(s.lastFrame().Data, &args)
	// The state keeps the last few calls of a server: it lists the newer
	// call only, and another tab's, started long before both.
	s.delta(2,
		callChange(wire.Call{ID: "other.op-1", Server: "s1", Kind: wire.CallKindTool, Name: "slow", State: wire.CallRunning, Started: time.Unix(1, 0)}),
		callChange(wire.Call{ID: args.Call, Server: "s1", Kind: wire.CallKindTool, Name: "echo", State: wire.CallRunning, Started: time.Now()}))
	var ids []string
	for _, call := range c.View().Calls {
		ids = append(ids, call.ID)
	}
	if want := []string{newer, older, "other.op-1"}; !slices.Equal(ids, want) {
		t.Errorf("calls %v, want %v: newest first", ids, want)
	}
}
