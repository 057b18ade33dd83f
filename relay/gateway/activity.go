package gateway

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ActivityStore is the persistence of the agent call log; *store.Store
// satisfies it.
type ActivityStore interface {
	AddAgentCalls(ctx context.Context, cs []store.AgentCall) ([]store.AgentCall, error)
	AgentCalls(ctx context.Context, user string, f store.CallFilter) ([]store.AgentCall, error)
}

// Log is the [Recorder] that keeps agent calls in the store (the latest
// store.MaxAgentCalls per user) and shows each one live in the user's
// dashboards. Ended calls are written in the background, in batches
// (activitywriter.go); [Log.Activity] waits for those already ended, and
// [Log.Flush] before the store closes.
type Log struct {
	Store    ActivityStore
	Sessions *session.Manager // nil: logged, not shown live
	Logger   *slog.Logger

	mu sync.Mutex
	w  activityWriter
}

// Record implements [Recorder]. It never fails the call it records: a
// record that cannot be kept is logged.
func (l *Log) Record(ctx context.Context, c CallRecord) { l.Finish(ctx, "", c) }

// Started shows a call in progress in the user's dashboards and returns the
// id to pass to [Log.Finish] when it ends.
func (l *Log) Started(c CallRecord) string {
	if l.Sessions == nil {
		return ""
	}
	return l.Sessions.Session(c.User).StartAgentCall(wire.AgentCall{
		Agent: c.Agent, KeyID: c.KeyID, Server: c.Server, Tool: c.Name, Start: c.Start, Asked: c.Asked,
	})
}

// Finish logs the ended call c and shows it in place of the running call id
// (from [Log.Started]; empty when none was shown). It does not wait for the
// store.
func (l *Log) Finish(ctx context.Context, running string, c CallRecord) {
	l.enqueue(running, store.AgentCall{
		User: c.User, Agent: c.Agent, KeyID: c.KeyID, Server: c.Server, Tool: c.Name,
		Start: c.Start, Duration: c.Duration, Outcome: string(c.Outcome), Asked: c.Asked,
	})
}

// Activity returns the user's logged calls that match args, newest first.
func (l *Log) Activity(ctx context.Context, user string, args wire.ListActivityArgs) ([]wire.AgentCall, error) {
	l.Flush(ctx)
	recs, err := l.Store.AgentCalls(ctx, user, store.CallFilter{Agent: args.Agent, Server: args.Server, Outcome: string(args.Outcome)})
	if err != nil {
		if l.Logger != nil {
			l.Logger.Error("list agent calls", "user", user, "err", err)
		}
		return nil, wire.NewError(wire.CodeInternal, "could not read the activity log; see the relay log")
	}
	out := make([]wire.AgentCall, len(recs))
	for i, r := range recs {
		out[i] = wireCall(r)
	}
	return out, nil
}

// wireCall is a logged call as the dashboard sees it.
func wireCall(r store.AgentCall) wire.AgentCall {
	return wire.AgentCall{
		ID: session.AgentCallID(r.ID), Agent: r.Agent, KeyID: r.KeyID, Server: r.Server, Tool: r.Tool,
		Start: r.Start, Duration: r.Duration.Milliseconds(), Outcome: wire.Outcome(r.Outcome), Asked: r.Asked,
	}
}

// HandleOps registers the dashboard's op on the log: list the calls that
// match its (optional) filter.
func (l *Log) HandleOps(mux *ops.Mux) {
	mux.Handle(wire.OpListActivity, func(ctx context.Context, r ops.Request) (any, error) {
		var args wire.ListActivityArgs
		if len(r.Args) > 0 {
			if err := ops.Decode(r.Args, &args); err != nil {
				return nil, err
			}
		}
		calls, err := l.Activity(ctx, r.User, args)
		if calls == nil {
			calls = []wire.AgentCall{}
		}
		return wire.ActivityResult{Calls: calls}, err
	})
}

// recording is the activity record of one operation in progress, shown as
// running meanwhile when the recorder is a [LiveRecorder].
type recording struct {
	r       Recorder // nil: nothing recorded
	c       CallRecord
	running string // the id of the running call shown
	asked   bool   // a person was asked during the operation
}

// maxRecordedName caps the name (or resource URI) of a recorded operation,
// which is kept in the activity log and shown in the dashboards.
const maxRecordedName = 512

// startRecording starts the record c of an operation; c.Start is now.
func startRecording(r Recorder, c CallRecord) *recording {
	c.Start = time.Now()
	c.Name = wire.Sanitize(c.Name, maxRecordedName) // a resource URI is the agent's own text
	rec := &recording{r: r, c: c}
	if lr, ok := r.(LiveRecorder); ok {
		rec.running = lr.Started(c)
	}
	return rec
}

// record starts the record of an operation of grant's agent on server id.
func (v *view) record(grant agentkeys.Grant, id, kind, name string) *recording {
	return startRecording(v.g.cfg.Recorder, CallRecord{User: grant.User, Agent: grant.Agent, KeyID: grant.KeyID, Server: id, Kind: kind, Name: name})
}

// done records the operation's end. It uses a context that outlives the
// call's, which may be cancelled.
func (r *recording) done(ctx context.Context, outcome wire.Outcome) {
	if r.r == nil {
		return
	}
	r.c.Duration, r.c.Outcome, r.c.Asked = time.Since(r.c.Start), outcome, r.asked
	ctx = context.WithoutCancel(ctx)
	if lr, ok := r.r.(LiveRecorder); ok {
		lr.Finish(ctx, r.running, r.c)
		return
	}
	r.r.Record(ctx, r.c)
}
