package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Calls (tool calls, prompt gets, resource reads) live in the user's state
// while they run and for a while after, so that every dashboard of the
// user, and one that reloads, shows them with their progress, a Cancel and
// their result. A call runs on the session, not on the dashboard that made
// it: when that dashboard goes away the call goes on, and only an explicit
// cancel (op.cancel of its op, or call.cancel from any dashboard) stops it.
// A call that runs as an MCP task has its task id stored, so that a relay
// restart follows the task again.

// Timeouts of the calls' own store writes and task cancels.
const (
	callStoreTimeout  = 5 * time.Second
	callCancelTimeout = 10 * time.Second
	// progressEvery spaces the progress deltas of one call.
	progressEvery = 100 * time.Millisecond
	// maxRunningCalls bounds the calls running at once for one user: calls
	// outlive their dashboards, so the per-dashboard op limit does not.
	maxRunningCalls = 128
)

// errOpCancelled is the cause of an op's context cancelled by op.cancel.
var errOpCancelled = errors.New("op cancelled")

// runningCall is a call while it runs.
type runningCall struct {
	id, server string
	ctx        context.Context
	cancel     context.CancelFunc
	done       chan struct{} // closed once result and err are set
	result     any
	err        error

	// Guarded by the session's mu.
	task         string     // the MCP task id, once created
	conn         Connection // the connection following the task
	abandoned    bool       // the session closed or the server went: the call leaves no trace
	lastProgress time.Time  // when progress was last published
}

// callSpec is a call an op asks for.
type callSpec struct {
	id, server, name string
	kind             wire.CallKind
	run              func(ctx context.Context, c Connection, rc *runningCall, progress func(wire.Progress)) (any, error)
}

// handleCallOps registers the ops that make calls (a tool call, a prompt
// get, a resource read) and cancel them.
func (m *Manager) handleCallOps(mux *ops.Mux) {
	call := func(ctx context.Context, r ops.Request) (any, error) { return m.Session(r.User).callOp(ctx, r) }
	mux.Handle(wire.OpCallTool, call)
	mux.Handle(wire.OpGetPrompt, call)
	mux.Handle(wire.OpReadResource, call)
	mux.Handle(wire.OpCancelCall, on(m, func(_ context.Context, s *Session, a wire.CallArgs) (any, error) {
		return struct{}{}, s.CancelCall(a.Call)
	}))
}

// callOp runs a tool call, prompt get or resource read as a call in the
// state, and answers the op with its result.
func (s *Session) callOp(ctx context.Context, r ops.Request) (any, error) {
	progress := r.Progress
	spec, err := decodeCall(s, r)
	if err != nil {
		return nil, err
	}
	c, err := s.connection(spec.server)
	if err != nil {
		return nil, err
	}
	rc, err := s.startCall(spec)
	if err != nil {
		return nil, err
	}
	// The call runs on the op's goroutine (one hand-over less on the way
	// back) but under a context of its own: cancelling the op cancels it,
	// a dashboard that went away does not.
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(context.Cause(ctx), errOpCancelled) {
			s.cancelCall(rc)
		}
	})
	res, err := spec.run(rc.ctx, c, rc, func(p wire.Progress) {
		progress(p)
		s.callProgress(rc, p)
	})
	s.finishCall(rc, res, err)
	stop()
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errOpCancelled) {
		return nil, wire.NewError(wire.CodeCancelled, "the dashboard went away; the call goes on")
	}
	return rc.result, rc.err
}

// decodeCall reads the call an op asks for.
func decodeCall(s *Session, r ops.Request) (callSpec, error) {
	switch r.Op {
	case wire.OpCallTool:
		var a wire.CallToolArgs
		if err := ops.Decode(r.Args, &a); err != nil {
			return callSpec{}, err
		}
		return callSpec{id: a.Call, server: a.Server, kind: wire.CallKindTool, name: a.Name,
			run: func(ctx context.Context, c Connection, rc *runningCall, progress func(wire.Progress)) (any, error) {
				return s.callTool(ctx, c, rc, a, progress)
			}}, nil
	case wire.OpGetPrompt:
		var a wire.GetPromptArgs
		if err := ops.Decode(r.Args, &a); err != nil {
			return callSpec{}, err
		}
		return callSpec{id: a.Call, server: a.Server, kind: wire.CallKindPrompt, name: a.Name,
			run: func(ctx context.Context, c Connection, _ *runningCall, _ func(wire.Progress)) (any, error) {
				res, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: a.Name, Arguments: a.Arguments})
				if err != nil {
					return nil, err
				}
				return orNil(mcpwire.PromptResult(res))
			}}, nil
	default: // wire.OpReadResource
		var a wire.ReadResourceArgs
		if err := ops.Decode(r.Args, &a); err != nil {
			return callSpec{}, err
		}
		return callSpec{id: a.Call, server: a.Server, kind: wire.CallKindResource, name: a.URI,
			run: func(ctx context.Context, c Connection, _ *runningCall, _ func(wire.Progress)) (any, error) {
				res, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: a.URI})
				if err != nil {
					return nil, err
				}
				return mcpwire.ReadResult(res), nil
			}}, nil
	}
}

// callTool calls a tool, as a task when the tool and server want one.
func (s *Session) callTool(ctx context.Context, c Connection, rc *runningCall, a wire.CallToolArgs, progress func(wire.Progress)) (any, error) {
	asTask, err := c.TaskMode(a.Name)
	if err != nil {
		return nil, err
	}
	p := &mcp.CallToolParams{Name: a.Name, Arguments: a.Arguments}
	onProgress := func(p *mcp.ProgressNotificationParams) { progress(mcpwire.Progress(p)) }
	var res *mcp.CallToolResult
	if asTask {
		res, err = c.CallToolTask(ctx, p, onProgress,
			func(task conn.Task) { s.taskCreated(rc, c, a.Name, task) },
			func(task conn.Task) { s.taskStatus(rc, task) })
	} else {
		res, err = c.CallTool(ctx, p, onProgress)
	}
	if err != nil {
		return nil, err
	}
	return orNil(s.ToolResult(rc.server, a.Name, res))
}

// ToolResult converts the result of tool of server as a dashboard shows
// it, checked against the outputSchema the server listed for the tool
// (relay/mcpwire).
func (s *Session) ToolResult(server, tool string, res *mcp.CallToolResult) (*wire.CallToolResult, error) {
	return mcpwire.ToolResult(res, s.outputSchema(server, tool))
}

// outputSchema is the outputSchema server lists for tool, nil for none.
func (s *Session) outputSchema(server, tool string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.servers[server]
	if e == nil {
		return nil
	}
	if i := slices.IndexFunc(e.state.Tools, func(t wire.Tool) bool { return t.Name == tool }); i >= 0 {
		return e.state.Tools[i].OutputSchema
	}
	return nil
}

// orNil returns v as any, or nil when err is set: never a typed nil.
func orNil[T any](v *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// startCall puts a new running call in the state.
func (s *Session) startCall(spec callSpec) (*runningCall, error) {
	id := spec.id
	if id == "" {
		id = randomHex(8)
	}
	if len(id) > wire.MaxCallID {
		return nil, wire.NewError(wire.CodeBadRequest, "a call id is at most 64 bytes")
	}
	ctx, cancel := context.WithCancel(context.Background())
	rc := &runningCall{id: id, server: spec.server, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	call := wire.Call{ID: id, Server: spec.server, Kind: spec.kind, Name: spec.name, State: wire.CallRunning, Started: time.Now().UTC()}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		cancel()
		return nil, wire.NewError(wire.CodeInternal, "the relay is shutting down")
	case s.servers[spec.server] == nil:
		cancel()
		return nil, wire.NewError(wire.CodeNotFound, "no such server")
	case s.callIndexLocked(id) >= 0:
		cancel()
		return nil, wire.NewError(wire.CodeBadRequest, "a call with this id exists")
	case len(s.running) >= maxRunningCalls:
		cancel()
		return nil, wire.NewError(wire.CodeBadRequest, fmt.Sprintf("too many calls running (at most %d)", maxRunningCalls))
	}
	if s.running == nil {
		s.running = map[string]*runningCall{}
	}
	s.running[id] = rc
	s.putCallLocked(call)
	s.pruneCallsLocked(spec.server)
	return rc, nil
}

// finishCall records the end of rc in the state and lets its waiters go.
func (s *Session) finishCall(rc *runningCall, res any, err error) {
	if err == nil && rc.ctx.Err() != nil {
		err = wire.NewError(wire.CodeCancelled, "cancelled")
	}
	rc.result, rc.err = res, err
	s.mu.Lock()
	abandoned, task := rc.abandoned, rc.task
	s.mu.Unlock()
	if task != "" && !abandoned {
		s.forgetTask(rc.id) // before the state says the call ended
	}
	s.mu.Lock()
	delete(s.running, rc.id)
	abandoned = rc.abandoned
	if i := s.callIndexLocked(rc.id); i >= 0 && !abandoned {
		call := s.calls[i]
		call.State, call.Progress, call.Cancelling, call.Ended = wire.CallDone, nil, false, time.Now().UTC()
		if err != nil {
			call.State, call.Error = wire.CallFailed, asWireError(err)
		} else if b, mErr := json.Marshal(res); mErr != nil || len(b) > wire.MaxCallResultBytes {
			call.ResultOmitted = true
		} else {
			call.Result = b
		}
		if call.Task != nil && err != nil && asWireError(err).Code == wire.CodeCancelled {
			task := *call.Task // a copy: snapshots share the old one
			task.Status = wire.TaskCancelled
			call.Task = &task
		}
		s.putCallLocked(call)
		s.pruneCallsLocked(rc.server)
	}
	s.mu.Unlock()
	rc.cancel()
	close(rc.done)
}

// callProgress shows a running call's progress, at most every progressEvery.
func (s *Session) callProgress(rc *runningCall, p wire.Progress) {
	p.Message = wire.Sanitize(p.Message, wire.MaxErrorMessage)
	s.editCall(rc, func(call *wire.Call) bool {
		if time.Since(rc.lastProgress) < progressEvery {
			return false
		}
		rc.lastProgress = time.Now()
		call.Progress = &p
		return true
	})
}

// taskCreated notes the task rc runs as on c, in the state and in the
// store.
func (s *Session) taskCreated(rc *runningCall, c Connection, tool string, task conn.Task) {
	s.mu.Lock()
	rc.task, rc.conn = task.ID, c
	s.mu.Unlock()
	s.taskStatus(rc, task)
	ctx, cancel := context.WithTimeout(context.Background(), callStoreTimeout)
	defer cancel()
	err := s.m.store.PutCallTask(ctx, store.CallTask{User: s.user, Server: rc.server, Call: rc.id, Task: task.ID, Tool: tool, Started: time.Now()})
	if err != nil {
		s.m.logger.Error("store call task", "user", s.user, "server", rc.server, "err", err)
	}
}

// taskStatus shows a task's status.
func (s *Session) taskStatus(rc *runningCall, task conn.Task) {
	shown := mcpwire.CallTask(task.ID, task.Status, task.StatusMessage)
	s.editCall(rc, func(call *wire.Call) bool {
		call.Task = &shown
		return true
	})
}

// forgetTask drops the stored task of a call that ended.
func (s *Session) forgetTask(call string) {
	ctx, cancel := context.WithTimeout(context.Background(), callStoreTimeout)
	defer cancel()
	if err := s.m.store.DeleteCallTask(ctx, s.user, call); err != nil {
		s.m.logger.Error("forget call task", "user", s.user, "err", err)
	}
}

// editCall changes rc's call in the state and publishes it, if edit says
// it changed.
func (s *Session) editCall(rc *runningCall, edit func(*wire.Call) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.callIndexLocked(rc.id)
	if i < 0 || rc.abandoned || s.calls[i].State != wire.CallRunning {
		return
	}
	call := s.calls[i]
	if edit(&call) {
		s.putCallLocked(call)
	}
}

// CancelCall cancels the running call id: its task with tasks/cancel, and
// the request itself.
func (s *Session) CancelCall(id string) error {
	s.mu.Lock()
	rc := s.running[id]
	s.mu.Unlock()
	if rc == nil {
		return wire.NewError(wire.CodeNotFound, "no running call with this id")
	}
	s.cancelCall(rc)
	return nil
}

// cancelCall shows rc as cancelling, cancels its task if it has one, and
// ends it.
func (s *Session) cancelCall(rc *runningCall) {
	s.editCall(rc, func(call *wire.Call) bool {
		call.Cancelling = true
		return true
	})
	s.mu.Lock()
	task, t := rc.task, rc.conn
	s.mu.Unlock()
	if task != "" && t != nil {
		ctx, cancel := context.WithTimeout(context.Background(), callCancelTimeout)
		if err := t.CancelTask(ctx, task); err != nil {
			s.m.logger.Warn("cancel task", "user", s.user, "server", rc.server, "err", err)
		}
		cancel()
	}
	rc.cancel()
}

// putCallLocked puts call in the state and publishes it.
func (s *Session) putCallLocked(call wire.Call) {
	if i := s.callIndexLocked(call.ID); i >= 0 {
		s.calls[i] = call
	} else {
		s.calls = append(s.calls, call)
	}
	b, _ := json.Marshal(call) // a wire.Call always marshals
	s.publishLocked([]wire.Change{{Kind: wire.KindCall, Server: call.Server, Key: call.ID, Value: b}})
}

// pruneCallsLocked drops the oldest finished calls of server beyond
// wire.MaxCallsPerServer.
func (s *Session) pruneCallsLocked(server string) {
	n := 0
	for _, c := range s.calls {
		if c.Server == server {
			n++
		}
	}
	for i := 0; n > wire.MaxCallsPerServer && i < len(s.calls); {
		c := s.calls[i]
		if c.Server != server || c.State == wire.CallRunning {
			i++
			continue
		}
		s.calls = slices.Delete(s.calls, i, i+1)
		n--
		s.publishLocked([]wire.Change{{Kind: wire.KindCall, Server: server, Key: c.ID, Remove: true}})
	}
}

func (s *Session) callIndexLocked(id string) int {
	return slices.IndexFunc(s.calls, func(c wire.Call) bool { return c.ID == id })
}

// abandonCallsLocked stops following the calls of server ("" for all)
// without a trace: the server is gone, or the relay stops and a restart
// follows their tasks again.
func (s *Session) abandonCallsLocked(server string) {
	for _, rc := range s.running {
		if server == "" || rc.server == server {
			rc.abandoned = true
			rc.cancel()
		}
	}
	if server != "" {
		s.calls = slices.DeleteFunc(s.calls, func(c wire.Call) bool { return c.Server == server })
	}
}

// resumeTasks follows again the stored tasks of e's server, after a restart.
func (s *Session) resumeTasks(e *entry) {
	ctx, cancel := context.WithTimeout(context.Background(), callStoreTimeout)
	tasks, err := s.m.store.CallTasks(ctx, s.user, e.reg.ID)
	cancel()
	if err != nil {
		s.m.logger.Error("read call tasks", "user", s.user, "server", e.reg.ID, "err", err)
		return
	}
	s.mu.Lock()
	t := e.conn
	s.mu.Unlock()
	for _, st := range tasks {
		if t == nil {
			s.forgetTask(st.Call)
			continue
		}
		rc, err := s.startCall(callSpec{id: st.Call, server: st.Server, kind: wire.CallKindTool, name: st.Tool})
		if err != nil {
			continue
		}
		s.mu.Lock()
		rc.task, rc.conn = st.Task, t
		s.mu.Unlock()
		go func() {
			res, err := t.WatchTask(rc.ctx, st.Task, func(task conn.Task) { s.taskStatus(rc, task) })
			if err != nil {
				s.finishCall(rc, nil, err)
				return
			}
			out, err := orNil(s.ToolResult(st.Server, st.Tool, res))
			s.finishCall(rc, out, err)
		}()
	}
}

// ping pings the server of c.
func ping(ctx context.Context, c Connection) (any, error) {
	d, err := c.Ping(ctx)
	if err != nil {
		return nil, err
	}
	return wire.PingResult{RoundTripMillis: float64(d.Microseconds()) / 1000}, nil
}
