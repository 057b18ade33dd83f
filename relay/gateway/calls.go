package gateway

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Messages an agent may get from the gateway itself.
const (
	msgDenied   = "this agent key may not use that"
	msgTimedOut = "The server asked a person a question in Switchboard during this call, and nobody answered before the deadline. Ask the person to answer in the Switchboard dashboard, then call again."
)

// callTool is the handler of server id's tool name, which grants name agg.
func (v *view) callTool(id, name, agg string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		grant := *v.grant.Load()
		rec := v.record(grant, id, KindTool, name)
		if !grant.AllowsTool(id, name, agg) || grant.Expired(time.Now()) {
			rec.done(ctx, OutcomeDenied)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msgDenied}
		}
		up, err := v.connection(id)
		if err != nil {
			rec.done(ctx, OutcomeFailed)
			return toolError(err), nil
		}
		w := newWaiter(ctx, req.Session, req.Params.GetProgressToken(), v.g.cfg.WaitingEvery)
		ctx = session.WithCaller(ctx, v.caller(grant, name, w))
		var progress func(*mcp.ProgressNotificationParams)
		if w.token != nil {
			progress = func(p *mcp.ProgressNotificationParams) { w.forward(mcpwire.Progress(p)) }
		}
		end := v.begin(id, ctx, req.Session)
		p := &mcp.CallToolParams{Meta: req.Params.Meta, Name: name, Arguments: req.Params.Arguments}
		var res *mcp.CallToolResult
		if t, ok := up.(taskRunner); ok && t.TaskRequired(name) {
			res, err = t.CallToolTask(ctx, p, progress, nil, nil)
		} else {
			res, err = up.CallTool(ctx, p, progress)
		}
		end()
		asked, timedOut := w.stop()
		rec.asked = asked
		switch {
		case timedOut:
			rec.done(ctx, OutcomeTimedOut)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msgTimedOut}}}, nil
		case err != nil:
			rec.done(ctx, outcomeOf(ctx, err))
			return passError(ctx, err)
		case res.IsError:
			rec.done(ctx, OutcomeToolError)
		default:
			rec.done(ctx, OutcomeOK)
		}
		return res, nil
	}
}

// getPrompt is the handler of server id's prompt name.
func (v *view) getPrompt(id, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		grant := *v.grant.Load()
		rec := v.record(grant, id, KindPrompt, name)
		up, err := v.allowed(grant, id)
		if err != nil {
			rec.done(ctx, OutcomeDenied)
			return nil, err
		}
		w := newWaiter(ctx, req.Session, nil, 0)
		ctx = session.WithCaller(ctx, v.caller(grant, name, w))
		res, err := up.GetPrompt(ctx, &mcp.GetPromptParams{Meta: req.Params.Meta, Name: name, Arguments: req.Params.Arguments})
		rec.asked, _ = w.stop()
		if err != nil {
			rec.done(ctx, outcomeOf(ctx, err))
			return nil, requestError(ctx, err)
		}
		rec.done(ctx, OutcomeOK)
		return res, nil
	}
}

// readResource is the handler of server id's resources and templates.
func (v *view) readResource(id string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		if v.only == "" {
			server, own, ok := upstreamURI(uri)
			if !ok || server != id {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			uri = own
		}
		grant := *v.grant.Load()
		rec := v.record(grant, id, KindResource, uri)
		up, err := v.allowed(grant, id)
		if err != nil {
			rec.done(ctx, OutcomeDenied)
			return nil, err
		}
		w := newWaiter(ctx, req.Session, nil, 0)
		ctx = session.WithCaller(ctx, v.caller(grant, uri, w))
		res, err := up.ReadResource(ctx, &mcp.ReadResourceParams{Meta: req.Params.Meta, URI: uri})
		rec.asked, _ = w.stop()
		if err != nil {
			rec.done(ctx, outcomeOf(ctx, err))
			return nil, requestError(ctx, err)
		}
		rec.done(ctx, OutcomeOK)
		if v.only == "" {
			for _, c := range res.Contents {
				if c != nil && c.URI != "" {
					c.URI = exposedURI(id, c.URI)
				}
			}
		}
		return res, nil
	}
}

// allowed returns server id's connection when grant reaches it now.
func (v *view) allowed(grant agentkeys.Grant, id string) (upstream, error) {
	if !grant.AllowsServer(id) || grant.Expired(time.Now()) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msgDenied}
	}
	up, err := v.connection(id)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: asWire(err).Message}
	}
	return up, nil
}

// caller is the label of an agent's operation on name.
func (v *view) caller(grant agentkeys.Grant, name string, w *waiter) session.Caller {
	return session.Caller{Agent: grant.Agent, Tool: name, Call: strconv.FormatUint(v.calls.Add(1), 10), Note: w.note, Sampler: agentSampler(grant, w)}
}

// toolError is a failed call as a tool result, which the agent's model sees.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: asWire(err).Message}}}
}

// msgURLUnasked is what an agent gets of a server's -32042 error the relay
// could not follow: its URLs are for a person.
const msgURLUnasked = "the server requires a person to open a URL, which the relay could not ask for"

// forAgent is what an agent may see of err: the server's JSON-RPC error as
// it is, except a -32042 one, whose URLs are for a person; otherwise the
// relay's reason.
func forAgent(err error) (*jsonrpc.Error, *wire.Error) {
	var ce *conn.Error
	if errors.As(err, &ce) && ce.RPC != nil {
		if ce.RPC.Code == mcp.CodeURLElicitationRequired {
			return nil, wire.NewError(wire.CodeUpstream, msgURLUnasked)
		}
		return ce.RPC, nil
	}
	return nil, asWire(err)
}

// passError returns what the agent gets for err: the server's JSON-RPC
// error as it is, the cancellation when the agent cancelled, a tool error
// otherwise.
func passError(ctx context.Context, err error) (*mcp.CallToolResult, error) {
	rpcErr, we := forAgent(err)
	switch {
	case rpcErr != nil:
		return nil, rpcErr
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return toolError(we), nil
}

// requestError is what the agent gets for err on a request other than a
// tool call: the server's JSON-RPC error as it is, the cancellation when the
// agent cancelled, an internal error with the relay's reason otherwise.
func requestError(ctx context.Context, err error) error {
	rpcErr, we := forAgent(err)
	switch {
	case rpcErr != nil:
		return rpcErr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: we.Message}
}

// outcomeOf is the recorded outcome of a call that failed with err.
func outcomeOf(ctx context.Context, err error) wire.Outcome {
	if ctx.Err() != nil || asWire(err).Code == wire.CodeCancelled {
		return OutcomeCancelled
	}
	return OutcomeFailed
}

// asWire returns err as a wire error, sanitized.
func asWire(err error) *wire.Error {
	if we, ok := mcpwire.Error(err); ok {
		return we
	}
	return wire.NewError(wire.CodeUpstream, err.Error())
}

// complete routes a completion request to the server of its reference.
func (v *view) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := *req.Params
	if p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "a completion needs a reference"}
	}
	ref := *p.Ref
	var id string
	switch ref.Type {
	case "ref/prompt":
		id, ref.Name = v.findPrompt(ref.Name)
	case "ref/resource":
		if v.only == "" {
			server, own, ok := upstreamURI(ref.URI)
			if ok {
				id, ref.URI = server, own
			}
		} else {
			id = v.only
		}
	}
	if id == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such prompt or resource template"}
	}
	up, err := v.allowed(*v.grant.Load(), id)
	if err != nil {
		return nil, err
	}
	p.Ref = &ref
	res, err := up.Complete(ctx, &p)
	if err != nil {
		return nil, requestError(ctx, err)
	}
	return res, nil
}

// findPrompt returns the server and own name of the prompt exposed as name.
func (v *view) findPrompt(name string) (server, own string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for id, e := range v.shown {
		if it, ok := e.prompts[name]; ok {
			return id, it.name
		}
	}
	return "", ""
}

// routing ends every request of an agent when the view closes (closing a
// session waits for its requests), passes an agent's logging level on to
// the servers, and routes its ping on a server's endpoint to that server
// (the aggregate endpoint answers pings itself).
func (v *view) routing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(v.ctx, cancel)()
		if method == "logging/setLevel" {
			res, err := next(ctx, method, req)
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && err == nil {
				v.setLevel(ctx, p.Level)
			}
			return res, err
		}
		if method != "ping" || v.only == "" {
			return next(ctx, method, req)
		}
		up, err := v.allowed(*v.grant.Load(), v.only)
		if err != nil {
			return nil, err
		}
		if _, err := up.Ping(ctx); err != nil {
			return nil, requestError(ctx, err)
		}
		return next(ctx, method, req)
	}
}

// taskRunner is what the gateway uses of a connection to call a tool that
// runs only as an MCP task (a *conn.Conn has it). The relay follows the
// task itself, so the agent calls it like any tool and gets its result.
type taskRunner interface {
	TaskRequired(tool string) bool
	CallToolTask(ctx context.Context, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams), created, status func(conn.Task)) (*mcp.CallToolResult, error)
}
