package session

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// handleCallOps registers the ops by which a person makes calls (a tool
// call, a prompt get, a resource read), through the one call path
// (call.go), and cancels them.
func (m *Manager) handleCallOps(mux *ops.Mux) {
	mux.Handle(wire.OpCallTool, personCall(m, func(ctx context.Context, o *Server, c Caller, a wire.CallToolArgs) error {
		c.App = a.App
		_, err := o.CallTool(ctx, c, &mcp.CallToolParams{Name: a.Name, Arguments: a.Arguments})
		return err
	}))
	mux.Handle(wire.OpGetPrompt, personCall(m, func(ctx context.Context, o *Server, c Caller, a wire.GetPromptArgs) error {
		_, err := o.GetPrompt(ctx, c, &mcp.GetPromptParams{Name: a.Name, Arguments: a.Arguments})
		return err
	}))
	mux.Handle(wire.OpReadResource, personCall(m, func(ctx context.Context, o *Server, c Caller, a wire.ReadResourceArgs) error {
		_, err := o.ReadResource(ctx, c, &mcp.ReadResourceParams{URI: a.URI})
		return err
	}))
	mux.Handle(wire.OpCancelCall, on(m, func(_ context.Context, s *Session, a wire.CallArgs) (any, error) {
		return struct{}{}, s.CancelCall(a.Call)
	}))
}

// callArgs are the arguments of the ops that make calls.
type callArgs interface {
	ServerID() string
	CallID() string
}

// personCall is the handler of an op that makes a call for the person: do
// makes it under the caller the op describes, and the op is answered with
// the result as the dashboards see it. The call outlives the op's
// dashboard: when the dashboard goes away first, the op fails, and the
// call goes on.
func personCall[A callArgs](m *Manager, do func(context.Context, *Server, Caller, A) error) ops.Handler {
	return func(ctx context.Context, r ops.Request) (any, error) {
		var a A
		if err := ops.Decode(r.Args, &a); err != nil {
			return nil, err
		}
		o, err := m.Session(r.User).server(a.ServerID())
		if err != nil {
			return nil, err
		}
		var shown any
		c := Caller{Call: a.CallID(), Shown: func(v any) { shown = v }}
		if r.Progress != nil {
			c.Progress = func(p *mcp.ProgressNotificationParams) { r.Progress(mcpwire.Progress(p)) }
		}
		err = do(ctx, o, c, a)
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errOpCancelled) {
			return nil, wire.NewError(wire.CodeCancelled, "the dashboard went away; the call goes on")
		}
		return shown, err
	}
}
