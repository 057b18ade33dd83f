package session

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A person's calls (tool calls, prompt gets, resource reads) live in the
// user's state while they run and for a while after, so that every
// dashboard of the user, and one that reloads, shows them with their
// progress, a Cancel and their result. A call runs on the session, not on
// the dashboard that made it: when that dashboard goes away the call goes
// on, and only an explicit cancel (op.cancel of its op, or call.cancel
// from any dashboard) stops it. A call that runs as an MCP task has its
// task id stored, so that a relay restart follows the task again.

// errOpCancelled is the cause of an op's context cancelled by op.cancel.
var errOpCancelled = errors.New("op cancelled")

// startPersonCallLocked puts a person's new call in the state.
func (o *Server) startPersonCallLocked(rc *runningCall) error {
	id := rc.caller.Call
	if id == "" {
		id = randomHex(8)
	}
	if len(id) > wire.MaxCallID {
		return wire.NewError(wire.CodeBadRequest, "a call id is at most 64 bytes")
	}
	for _, other := range o.s.servers {
		if other.callIndexLocked(id) >= 0 {
			return wire.NewError(wire.CodeBadRequest, "a call with this id exists")
		}
	}
	rc.id = id
	o.putCallLocked(wire.Call{ID: id, Server: o.reg.ID, Kind: rc.kind, Name: rc.name, State: wire.CallRunning, Started: rc.start.UTC(),
		Arguments: rc.args, App: rc.caller.App})
	o.pruneCallsLocked()
	return nil
}

// endPersonCall shows how a person's call ended.
func (o *Server) endPersonCall(rc *runningCall, end callEnd) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	i := o.callIndexLocked(rc.id)
	if i < 0 || rc.abandoned || o.closed {
		return
	}
	call := o.calls[i]
	call.State, call.Progress, call.Cancelling, call.Ended = wire.CallDone, nil, false, time.Now().UTC()
	if end.err != nil {
		call.State, call.Error = wire.CallFailed, asWireError(end.err)
	} else if b, err := json.Marshal(end.shown); err != nil || len(b) > wire.MaxCallResultBytes {
		call.ResultOmitted = true
	} else {
		call.Result = b
	}
	if call.Task != nil && end.err != nil && asWireError(end.err).Code == wire.CodeCancelled {
		task := *call.Task // a copy: snapshots share the old one
		task.Status = wire.TaskCancelled
		call.Task = &task
	}
	o.putCallLocked(call)
	o.pruneCallsLocked()
}

// callProgress shows a running call's progress, at most every progressEvery.
func (o *Server) callProgress(rc *runningCall, p wire.Progress) {
	o.editCall(rc, func(call *wire.Call) bool {
		if time.Since(rc.lastProgress) < progressEvery {
			return false
		}
		rc.lastProgress = time.Now()
		call.Progress = &p
		return true
	})
}

// showTask shows the status of the task a call runs as.
func (o *Server) showTask(rc *runningCall, t conn.Task) {
	shown := mcpwire.CallTask(t.ID, t.Status, t.StatusMessage)
	o.editCall(rc, func(call *wire.Call) bool {
		call.Task = &shown
		return true
	})
}

// keepTask shows the task a person's call runs as and stores it, so that a
// relay restart follows it again.
func (o *Server) keepTask(rc *runningCall, t conn.Task) {
	o.showTask(rc, t)
	ctx, cancel := context.WithTimeout(context.Background(), callStoreTimeout)
	defer cancel()
	err := o.s.m.store.PutCallTask(ctx, store.CallTask{User: o.s.user, Server: o.reg.ID, Call: rc.id, Task: t.ID, Tool: rc.name, Started: time.Now()})
	if err != nil {
		o.s.m.logger.Error("store call task", "user", o.s.user, "server", o.reg.ID, "err", err)
	}
}

// forgetTask drops the stored task of a call that ended.
func (o *Server) forgetTask(call string) {
	ctx, cancel := context.WithTimeout(context.Background(), callStoreTimeout)
	defer cancel()
	if err := o.s.m.store.DeleteCallTask(ctx, o.s.user, call); err != nil {
		o.s.m.logger.Error("forget call task", "user", o.s.user, "err", err)
	}
}

// editCall changes rc's call in the state and publishes it, if edit says
// it changed.
func (o *Server) editCall(rc *runningCall, edit func(*wire.Call) bool) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	i := o.callIndexLocked(rc.id)
	if i < 0 || rc.abandoned || o.calls[i].State != wire.CallRunning {
		return
	}
	call := o.calls[i]
	if edit(&call) {
		o.putCallLocked(call)
	}
}

// CancelCall cancels the user's running call id, on whichever server: its
// task with tasks/cancel, and the request itself.
func (s *Session) CancelCall(id string) error {
	s.mu.Lock()
	var rc *runningCall
	for _, o := range s.servers {
		if rc = o.running[id]; rc != nil && rc.caller.Agent == nil {
			break
		}
		rc = nil
	}
	s.mu.Unlock()
	if rc == nil {
		return wire.NewError(wire.CodeNotFound, "no running call with this id")
	}
	rc.o.cancelCall(rc)
	return nil
}

// cancelCall shows rc as cancelling and ends it; its task is cancelled as
// its context ends (call.go).
func (o *Server) cancelCall(rc *runningCall) {
	o.editCall(rc, func(call *wire.Call) bool {
		call.Cancelling = true
		return true
	})
	rc.cancel()
}

// putCallLocked puts call in the state and publishes it.
func (o *Server) putCallLocked(call wire.Call) {
	if i := o.callIndexLocked(call.ID); i >= 0 {
		o.calls[i] = call
	} else {
		o.calls = append(o.calls, call)
		o.arriveLocked("call:" + call.ID)
	}
	b, _ := json.Marshal(call) // a wire.Call always marshals
	o.s.publishLocked([]wire.Change{{Kind: wire.KindCall, Server: o.reg.ID, Key: call.ID, Value: b}})
}

// pruneCallsLocked drops the oldest finished calls beyond
// wire.MaxCallsPerServer.
func (o *Server) pruneCallsLocked() {
	for i := 0; len(o.calls) > wire.MaxCallsPerServer && i < len(o.calls); {
		c := o.calls[i]
		if c.State == wire.CallRunning {
			i++
			continue
		}
		o.calls = slices.Delete(o.calls, i, i+1)
		delete(o.arrived, "call:"+c.ID)
		o.s.publishLocked([]wire.Change{{Kind: wire.KindCall, Server: o.reg.ID, Key: c.ID, Remove: true}})
	}
}

func (o *Server) callIndexLocked(id string) int {
	return slices.IndexFunc(o.calls, func(c wire.Call) bool { return c.ID == id })
}

// outputSchema is the outputSchema the server lists for tool, nil for none.
func (o *Server) outputSchema(tool string) json.RawMessage {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	if i := slices.IndexFunc(o.state.Tools, func(t wire.Tool) bool { return t.Name == tool }); i >= 0 {
		return o.state.Tools[i].OutputSchema
	}
	return nil
}

// resumeTasks follows again the stored tasks of the server's calls, after
// a restart.
func (o *Server) resumeTasks() {
	s := o.s
	ctx, cancel := context.WithTimeout(context.Background(), callStoreTimeout)
	tasks, err := s.m.store.CallTasks(ctx, s.user, o.reg.ID)
	cancel()
	if err != nil {
		s.m.logger.Error("read call tasks", "user", s.user, "server", o.reg.ID, "err", err)
		return
	}
	for _, st := range tasks {
		cn, rc, err := o.begin(context.Background(), Caller{Call: st.Call}, wire.CallKindTool, st.Tool, nil)
		if err != nil {
			o.forgetTask(st.Call)
			continue
		}
		s.mu.Lock()
		rc.task = st.Task
		s.mu.Unlock()
		go func() {
			res, err := cn.WatchTask(rc.ctx, st.Task, rc.taskStatus)
			end := callEnd{err: err}
			if err == nil {
				end.shown, end.err = orNil(o.ToolResult(st.Tool, res))
			}
			o.finish(rc, end)
		}()
	}
}
