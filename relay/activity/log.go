package activity

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Store is the persistence of the log; *store.Store satisfies it.
type Store interface {
	AddAgentCalls(ctx context.Context, cs []store.AgentCall) ([]store.AgentCall, error)
	AgentCalls(ctx context.Context, user string, f store.CallFilter) ([]store.AgentCall, error)
}

// Log keeps agents' calls. Its zero value with a Store is ready.
type Log struct {
	Store  Store
	Logger *slog.Logger // nil logs nothing

	mu sync.Mutex
	w  writer
}

// Append keeps the ended call c of user, in the background, then calls
// shown with c as kept (its ID set), or as given when it could not be kept.
// It never fails the call it records: a call that cannot be kept is
// logged.
func (l *Log) Append(user string, c wire.AgentCall, shown func(wire.AgentCall)) {
	l.enqueue(pending{user: user, call: c, shown: shown})
}

// Activity returns the user's logged calls that match args, newest first.
func (l *Log) Activity(ctx context.Context, user string, args wire.ListActivityArgs) ([]wire.AgentCall, error) {
	l.Flush(ctx)
	recs, err := l.Store.AgentCalls(ctx, user, store.CallFilter{Agent: args.Agent, Server: args.Server, Outcome: string(args.Outcome)})
	if err != nil {
		l.logError("list agent calls", "user", user, "err", err)
		return nil, wire.NewError(wire.CodeInternal, "could not read the activity log; see the relay log")
	}
	out := make([]wire.AgentCall, len(recs))
	for i, r := range recs {
		out[i] = wireCall(r)
	}
	return out, nil
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

// storedCall is c of user as the store keeps it.
func storedCall(user string, c wire.AgentCall) store.AgentCall {
	return store.AgentCall{
		User: user, Agent: c.Agent, KeyID: c.KeyID, Server: c.Server, Tool: c.Tool,
		Start: c.Start, Duration: time.Duration(c.Duration) * time.Millisecond, Outcome: string(c.Outcome), Asked: c.Asked,
		Program: c.Program, ByCode: c.ByCode,
	}
}

// wireCall is a logged call as the dashboard sees it.
func wireCall(r store.AgentCall) wire.AgentCall {
	return wire.AgentCall{
		ID: strconv.FormatInt(r.ID, 10), Agent: r.Agent, KeyID: r.KeyID, Server: r.Server, Tool: r.Tool,
		Start: r.Start, Duration: r.Duration.Milliseconds(), Outcome: wire.Outcome(r.Outcome), Asked: r.Asked,
		Program: r.Program, ByCode: r.ByCode,
	}
}

func (l *Log) logError(msg string, args ...any) {
	if l.Logger != nil {
		l.Logger.Error(msg, args...)
	}
}
