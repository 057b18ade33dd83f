package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The one call path. Every caller (a person's dashboard, an agent through
// /mcp, /mcp/s/<id> or /api/tools, and the callers to come) runs an
// operation on a server through one method of the server's owner:
// [Server.CallTool], [Server.GetPrompt], [Server.ReadResource]. The owner
// alone
//   - checks that the caller may (an agent's grant, [Agent.Allowed]) and
//     that the server is connected;
//   - decides whether a tool runs as an MCP task, follows the task, and
//     cancels it when the call is cancelled, whoever the caller;
//   - records the call: a person's in the state with its progress, task
//     and result (callstate.go), an agent's shown while it runs and then
//     kept in the activity log (agentcalls.go);
//   - attributes the questions the server asks during the call (caller.go):
//     an agent's are labelled with its name and call, heard by it
//     ([Agent.Note]), and withdrawn when its call ends.

// Caller says on whose behalf an operation runs: a person (Agent nil) or
// an agent.
type Caller struct {
	// Call is the id a person's call has in the state, chosen by the
	// dashboard; generated when empty.
	Call string
	// Agent is the agent the call is made for; nil for a person.
	Agent *Agent
	// Progress, when not nil, receives the server's progress
	// notifications as the server sent them; never after the call returns.
	Progress func(*mcp.ProgressNotificationParams)
	// Shown, for a person's call, receives its result as the dashboards
	// see it (converted once, for the state and the op's answer).
	Shown func(any)
	// App, for a person's tool call made by a view, is the view's ui://
	// URI: the call is refused unless the view is one of the server's and
	// the tool is for its views ([Server.CallTool]).
	App string
}

// Agent is an agent calling through the agent endpoint.
type Agent struct {
	Name  string // shown on its asks and in the activity
	KeyID string
	// Label tells the person which of the agent's calls an ask belongs to.
	Label string
	// Allowed says whether the agent's grant allows the call now; a call
	// it refuses fails with [ErrDenied], and is recorded so.
	Allowed func() bool
	// Note, when not nil, hears of the asks the call raises, from the
	// goroutine that asks; it must not block.
	Note func(AskNote)
	// Chat, for the person's chat, is the conversation's id: the asks the
	// call raises carry it, and Label is the chat's tool call id.
	Chat string
	// Sampler, when not nil, is the agent's own client, to which the
	// person may hand a sampling request the call raises (forward.go).
	Sampler *AgentSampler
	// ByCode: the call is made by the agent's code-mode program; the
	// activity says so.
	ByCode bool
}

// Errors an agent's call fails with, besides the server's and the
// connection's.
var (
	// ErrDenied: the agent's grant does not allow the call.
	ErrDenied = errors.New("this agent key may not use that")
	// ErrUnanswered: the server asked a person during the call, and nobody
	// answered before the deadline; the server's answer, made without
	// one, is not the agent's.
	ErrUnanswered = errors.New("The server asked a person a question in Switchboard during this call, and nobody answered before the deadline. Ask the person to answer in the Switchboard dashboard, then call again.")
)

// Limits of the calls of one user.
const (
	// maxRunningCalls bounds the calls running at once for one user: a
	// person's calls outlive their dashboards, so the per-dashboard op
	// limit does not.
	maxRunningCalls = 128
	// progressEvery spaces the progress deltas of one call.
	progressEvery = 100 * time.Millisecond
	// callStoreTimeout and callCancelTimeout bound a call's own store
	// writes and task cancels.
	callStoreTimeout  = 5 * time.Second
	callCancelTimeout = 10 * time.Second
)

// CallTool calls a tool of the server for c, as an MCP task when the tool
// and the server want one. A call by a view (c.App) is refused unless the
// view is one of the server's and the tool is for its views.
func (o *Server) CallTool(ctx context.Context, c Caller, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if c.App != "" {
		if err := o.appMayCall(c.App, p.Name); err != nil {
			return nil, err
		}
	}
	var args json.RawMessage // kept in the state with a person's call
	if c.Agent == nil {
		args = callArguments(p.Arguments)
	}
	return run(ctx, o, c, wire.CallKindTool, p.Name, args,
		func(ctx context.Context, cn Connection, rc *runningCall) (*mcp.CallToolResult, error) {
			asTask, err := cn.TaskMode(p.Name)
			switch {
			case err != nil:
				return nil, err
			case asTask:
				return cn.CallToolTask(ctx, p, rc.progress, func(t conn.Task) { o.taskCreated(rc, t) }, rc.taskStatus)
			}
			return cn.CallTool(ctx, p, rc.progress)
		},
		func(res *mcp.CallToolResult) bool { return res.IsError },
		func(res *mcp.CallToolResult) (any, error) { return orNil(o.ToolResult(p.Name, res)) })
}

// GetPrompt gets a prompt of the server for c.
func (o *Server) GetPrompt(ctx context.Context, c Caller, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return run(ctx, o, c, wire.CallKindPrompt, p.Name, nil,
		func(ctx context.Context, cn Connection, _ *runningCall) (*mcp.GetPromptResult, error) {
			return cn.GetPrompt(ctx, p)
		},
		func(*mcp.GetPromptResult) bool { return false },
		func(res *mcp.GetPromptResult) (any, error) { return orNil(mcpwire.PromptResult(res)) })
}

// ReadResource reads a resource of the server for c.
func (o *Server) ReadResource(ctx context.Context, c Caller, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return run(ctx, o, c, wire.CallKindResource, p.URI, nil,
		func(ctx context.Context, cn Connection, _ *runningCall) (*mcp.ReadResourceResult, error) {
			return cn.ReadResource(ctx, p)
		},
		func(*mcp.ReadResourceResult) bool { return false },
		func(res *mcp.ReadResourceResult) (any, error) { return mcpwire.ReadResult(res), nil })
}

// run runs one call of kind on name with args (a tool's, as the state
// keeps them) for c: do runs it on the connection, isError tells a tool's
// error result, show converts a result for a person's dashboards.
func run[R any](ctx context.Context, o *Server, c Caller, kind wire.CallKind, name string, args json.RawMessage,
	do func(context.Context, Connection, *runningCall) (*R, error), isError func(*R) bool, show func(*R) (any, error)) (res *R, err error) {
	ctx, observed := observeCall(ctx, c, kind)
	defer func() { observed(err == nil && isError(res), err) }()
	cn, rc, err := o.begin(ctx, c, kind, name, args)
	if err != nil {
		return nil, err
	}
	res, err = do(rc.ctx, cn, rc)
	var end callEnd
	switch {
	case err != nil:
		end.err = err
	case c.Agent != nil:
		end.isError = isError(res)
	default:
		end.shown, end.err = show(res)
	}
	if err := o.finish(rc, end); err != nil {
		return nil, err
	}
	return res, nil
}

// orNil returns v as any, or nil when err is set: never a typed nil.
func orNil[T any](v *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// runningCall is a call while it runs.
type runningCall struct {
	o      *Server
	id     string // a person's: its id in the state; an agent's: the running call shown
	kind   wire.CallKind
	name   string          // the tool or prompt, or the resource's URI, as the server names it
	args   json.RawMessage // a person's tool call's arguments, as the state keeps them
	caller Caller
	start  time.Time
	ctx    context.Context // carries the call (caller.go); ends with it
	cancel context.CancelFunc
	stop   func() bool // stops following the op that made a person's call
	// stopTask stops cancelling the task when the call's context ends: a
	// call that ended is not cancelled.
	stopTask func() bool

	// Guarded by the session's mu.
	task         string    // the MCP task id, once created
	abandoned    bool      // the server went or the relay stops: the call leaves no trace
	lastProgress time.Time // when progress was last published
	asked        bool      // the server asked a person during the call
	timedOut     bool      // and nobody answered in time
}

// callKey is where a call's context carries it.
type callKey struct{}

// callEnd is how a call ended.
type callEnd struct {
	shown   any   // a person's call: its result as the dashboards see it
	isError bool  // an agent's call of a tool: the result is the tool's error
	err     error // why it failed
}

// begin checks that c may make the call and that the server is connected,
// and starts it: in the state for a person, shown as running for an
// agent. It returns the connection to run it on.
func (o *Server) begin(ctx context.Context, c Caller, kind wire.CallKind, name string, args json.RawMessage) (Connection, *runningCall, error) {
	rc := &runningCall{o: o, kind: kind, name: name, args: args, caller: c, start: time.Now(), stop: func() bool { return false }}
	if a := c.Agent; a != nil && a.Allowed != nil && !a.Allowed() {
		o.s.recordAgentCall(rc, wire.OutcomeDenied)
		return nil, nil, ErrDenied
	}
	cn, err := o.Connection()
	if err != nil {
		if c.Agent != nil {
			o.s.recordAgentCall(rc, wire.OutcomeFailed)
		}
		return nil, nil, err
	}
	if c.Agent != nil {
		rc.ctx, rc.cancel = context.WithCancel(ctx)
	} else {
		// A person's call runs on the session, not on the dashboard that
		// made it: only cancelling its op (or call.cancel) stops it.
		rc.ctx, rc.cancel = context.WithCancel(tracing.Detach(ctx))
		rc.stop = context.AfterFunc(ctx, func() {
			if errors.Is(context.Cause(ctx), errOpCancelled) {
				o.cancelCall(rc)
			}
		})
	}
	rc.ctx = context.WithValue(rc.ctx, callKey{}, rc)
	if err := o.start(rc); err != nil {
		rc.stop()
		rc.cancel()
		return nil, nil, err
	}
	rc.stopTask = context.AfterFunc(rc.ctx, func() { o.cancelTask(rc) })
	return cn, rc, nil
}

// start registers rc as running and records it.
func (o *Server) start(rc *runningCall) error {
	s := o.s
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return wire.NewError(wire.CodeInternal, "the relay is shutting down")
	case o.closed:
		return wire.NewError(wire.CodeNotFound, "no such server")
	case s.running >= maxRunningCalls:
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("too many calls running (at most %d)", maxRunningCalls))
	}
	if rc.caller.Agent != nil {
		rc.id = s.showAgentCallLocked(rc)
	} else if err := o.startPersonCallLocked(rc); err != nil {
		return err
	}
	o.running[rc.id] = rc
	s.running++
	return nil
}

// finish ends rc with end: a person's call shows its result or error in
// the state, an agent's is recorded with its outcome. It returns the error
// the caller gets.
func (o *Server) finish(rc *runningCall, end callEnd) error {
	rc.stop()
	rc.stopTask()
	defer rc.cancel()
	s := o.s
	s.mu.Lock()
	delete(o.running, rc.id)
	s.running--
	abandoned, task, timedOut := rc.abandoned, rc.task, rc.timedOut
	s.mu.Unlock()
	if rc.caller.Agent != nil {
		s.recordAgentCall(rc, agentOutcome(rc, end, timedOut))
		if timedOut {
			return ErrUnanswered
		}
		return end.err
	}
	if end.err == nil && rc.ctx.Err() != nil {
		end.err = wire.NewError(wire.CodeCancelled, "cancelled")
	}
	if task != "" && !abandoned {
		o.forgetTask(rc.id) // before the state says the call ended
	}
	o.endPersonCall(rc, end)
	if end.err == nil && rc.caller.Shown != nil {
		rc.caller.Shown(end.shown)
	}
	return end.err
}

// agentOutcome is the outcome recorded of an agent's call that ended so,
// timedOut when a person it asked never answered.
func agentOutcome(rc *runningCall, end callEnd, timedOut bool) wire.Outcome {
	switch {
	case timedOut:
		return wire.OutcomeTimedOut
	case end.err != nil && (rc.ctx.Err() != nil || asWireError(end.err).Code == wire.CodeCancelled):
		return wire.OutcomeCancelled
	case end.err != nil:
		return wire.OutcomeFailed
	case end.isError:
		return wire.OutcomeToolError
	}
	return wire.OutcomeOK
}

// progress passes the server's progress on to the caller and, for a
// person's call, shows it in the state.
func (rc *runningCall) progress(p *mcp.ProgressNotificationParams) {
	if rc.caller.Progress != nil {
		rc.caller.Progress(p)
	}
	if rc.caller.Agent == nil {
		rc.o.callProgress(rc, mcpwire.Progress(p))
	}
}

// taskStatus shows a person's call's task status.
func (rc *runningCall) taskStatus(t conn.Task) {
	if rc.caller.Agent == nil {
		rc.o.showTask(rc, t)
	}
}

// taskCreated notes the task rc runs as: it is cancelled with the call,
// and a person's call follows it again after a relay restart.
func (o *Server) taskCreated(rc *runningCall, t conn.Task) {
	o.s.mu.Lock()
	rc.task = t.ID
	o.s.mu.Unlock()
	if rc.caller.Agent == nil {
		o.keepTask(rc, t)
	}
}

// cancelTask cancels rc's task, if it has one, when rc was cancelled:
// tasks/cancel tells the server, whoever cancelled. A call abandoned (its
// server removed, the relay stopping) leaves its task alone: a restart
// follows it again.
func (o *Server) cancelTask(rc *runningCall) {
	o.s.mu.Lock()
	task, abandoned := rc.task, rc.abandoned
	cn := o.conn
	o.s.mu.Unlock()
	if task == "" || abandoned || cn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), callCancelTimeout)
	defer cancel()
	if err := cn.CancelTask(ctx, task); err != nil {
		o.s.m.logger.Warn("cancel task", "user", o.s.user, "server", o.reg.ID, "err", err)
	}
}

// abandonCallsLocked stops following the server's calls without a trace:
// the server is gone, or the relay stops and a restart follows their tasks
// again.
func (o *Server) abandonCallsLocked() {
	for _, rc := range o.running {
		rc.abandoned = true
		rc.cancel()
	}
}

// ToolResult converts a result of the server's tool as a dashboard shows
// it, checked against the outputSchema the server listed for the tool
// (relay/mcpwire).
func (o *Server) ToolResult(tool string, res *mcp.CallToolResult) (*wire.CallToolResult, error) {
	return mcpwire.ToolResult(res, o.outputSchema(tool))
}
