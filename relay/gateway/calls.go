package gateway

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// msgDenied is what an agent gets of a call its grant does not allow.
const msgDenied = "this agent key may not use that"

// Calls. An agent's tool call, prompt get or resource read runs through the
// one call path of the server's owner (relay/session), as a person's
// does: the owner checks the grant (Agent.Allowed), decides on a task,
// records the call and attributes the questions the server asks during it.
// The gateway turns the agent's request into a call and the call's end
// into the agent's answer: the server's result or JSON-RPC error as it is,
// a tool error with the relay's reason, "waiting for a person" progress
// meanwhile (waiter.go).

// callTool is the handler of server id's tool name, which grants name agg.
// A 2026-07-28 agent's call that may hand it sampling runs in rounds
// (rounds.go); its retry carries the requestState of its round.
func (v *view) callTool(id, name, agg string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		o, ok := v.user.Server(id)
		if !ok {
			return toolError(wire.NewError(wire.CodeNotFound, "no such server")), nil
		}
		end := v.begin(id, ctx, req.Session)
		defer end()
		if req.Params.RequestState != "" {
			rc, err := v.resumeRounds(req)
			if err != nil {
				return nil, err
			}
			res, err := v.awaitRound(ctx, rc)
			return callOutcome(ctx, res, err)
		}
		w := newWaiter(ctx, req.Session, req.Params.GetProgressToken(), v.g.cfg.WaitingEvery)
		defer w.stop()
		c := v.caller(name, w, func(g agentkeys.Grant) bool { return g.AllowsTool(id, name, agg) })
		task := taskOf(ctx)
		if task != nil { // no request waits for this call: its task tells the agent what it waits on
			c.Agent.Note = func(n session.AskNote) { w.note(n); task.note(n) }
			c.Agent.Sampler = nil
			c.Progress = func(p *mcp.ProgressNotificationParams) { task.progress(p.Message) }
		}
		defer v.holdLevel(ctx, id, req.Params.Meta)()
		p := &mcp.CallToolParams{Meta: withoutNewMeta(req.Params.Meta), Name: name, Arguments: req.Params.Arguments}
		if task == nil && handsSampling(*v.grant.Load(), req) {
			rc := v.startRounds(ctx, req, func(cctx context.Context, s *session.AgentSampler) (*mcp.CallToolResult, error) {
				c.Agent.Sampler = s
				return o.CallTool(cctx, c, p)
			})
			res, err := v.awaitRound(ctx, rc)
			return callOutcome(ctx, res, err)
		}
		res, err := o.CallTool(ctx, c, p)
		return callOutcome(ctx, res, err)
	}
}

// callOutcome is what the agent gets of a call that ended with res and err:
// the server's result, a tool error when nobody answered the person's
// question in time, else as passError.
func callOutcome(ctx context.Context, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	switch {
	case errors.Is(err, session.ErrUnanswered):
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	case err != nil:
		return passError(ctx, err)
	}
	return res, nil
}

// getPrompt is the handler of server id's prompt name.
func (v *view) getPrompt(id, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		o, err := v.owner(id)
		if err != nil {
			return nil, err
		}
		w := newWaiter(ctx, req.Session, nil, 0)
		defer w.stop()
		c := v.caller(name, w, func(g agentkeys.Grant) bool { return g.AllowsServer(id) })
		res, err := o.GetPrompt(ctx, c, &mcp.GetPromptParams{Meta: withoutNewMeta(req.Params.Meta), Name: name, Arguments: req.Params.Arguments})
		if err != nil {
			return nil, requestError(ctx, err)
		}
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
		o, err := v.owner(id)
		if err != nil {
			return nil, err
		}
		w := newWaiter(ctx, req.Session, nil, 0)
		defer w.stop()
		c := v.caller(uri, w, func(g agentkeys.Grant) bool { return g.AllowsServer(id) })
		res, err := o.ReadResource(ctx, c, &mcp.ReadResourceParams{Meta: withoutNewMeta(req.Params.Meta), URI: uri})
		if err != nil {
			return nil, requestError(ctx, err)
		}
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

// caller is the agent of the view's key calling name, its questions heard
// by w, the call allowed while allows says its key's grant allows it.
func (v *view) caller(name string, w *waiter, allows func(agentkeys.Grant) bool) session.Caller {
	grant := *v.grant.Load()
	c := session.Caller{Agent: &session.Agent{
		Name: grant.Agent, KeyID: grant.KeyID, Label: strconv.FormatUint(v.calls.Add(1), 10), Note: w.note,
		Sampler: agentSampler(grant, w),
		Allowed: func() bool { g := *v.grant.Load(); return allows(g) && !g.Expired(time.Now()) },
	}}
	if w.token != nil {
		c.Progress = func(p *mcp.ProgressNotificationParams) { w.forward(mcpwire.Progress(p)) }
	}
	return c
}

// holdLevel asks server id, while a call of a 2026-07-28 agent runs, for
// the log level the call's request carries (that era has no
// logging/setLevel; the go-sdk passes on to the call what is at or above
// it); it returns the release.
func (v *view) holdLevel(ctx context.Context, id string, meta mcp.Meta) (release func()) {
	level, _ := meta[mcp.MetaKeyLogLevel].(string)
	if level == "" {
		return func() {}
	}
	up, err := v.connection(id)
	if err != nil {
		return func() {}
	}
	holder := new(int) // this call's
	if err := up.SetAgentLogLevel(ctx, holder, wire.LogLevel(level)); err != nil {
		v.g.log.Debug("agent gateway: set logging level", "server", id, "error", err)
		return func() {}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notifyTimeout)
		defer cancel()
		up.ReleaseAgentLogLevel(ctx, holder)
	}
}

// owner returns the owner of server id, for a request other than a call.
func (v *view) owner(id string) (*session.Server, error) {
	o, ok := v.user.Server(id)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "no such server"}
	}
	return o, nil
}

// allowed returns server id's connection when the key's grant reaches it
// now, for the requests that are not calls (completions, pings,
// subscriptions).
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

// toolError is a failed call as a tool result, which the agent's model sees.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: asWire(err).Message}}}
}

// msgURLUnasked is what an agent gets of a server's -32042 error the relay
// could not follow: its URLs are for a person.
const msgURLUnasked = "the server requires a person to open a URL, which the relay could not ask for"

// forAgent is what an agent may see of err: the server's JSON-RPC error as
// it is, except a -32042 one, whose URLs are for a person; invalid params
// for a call its grant does not allow; otherwise the relay's reason.
func forAgent(err error) (*jsonrpc.Error, *wire.Error) {
	if errors.Is(err, session.ErrDenied) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msgDenied}, nil
	}
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
	p.Meta = withoutNewMeta(p.Meta)
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
// the servers, routes its ping on a server's endpoint to that server (the
// aggregate endpoint answers pings itself), and its reads of App views to
// their server.
//
// Every result leaves in the era of the agent's session (eras.go).
func (v *view) routing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := v.route(ctx, method, req, next)
		if err != nil || res == nil {
			return res, err
		}
		if passesThrough[method] {
			withoutServerInfo(res)
		}
		era := sessionEra(req)
		if init, ok := res.(*mcp.InitializeResult); ok {
			era = init.ProtocolVersion
		}
		res = withEraTasks(method, era, res)
		if !newEra(era) {
			return oldEraResult{res}, nil
		}
		return res, nil
	}
}

// passesThrough are the methods whose results come from a server.
var passesThrough = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true, "completion/complete": true}

// route serves one request of an agent; see routing.
func (v *view) route(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
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
	if r, ok := req.(*mcp.ReadResourceRequest); ok && method == "resources/read" && r.Params != nil {
		if id, ok := v.appServer(r.Params.URI); ok {
			return v.readResource(id)(ctx, r)
		}
	}
	if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
		if legacy, ttl, ok := taskRequest(r); ok {
			return v.runTask(ctx, r, legacy, ttl, next)
		}
		res, err := next(ctx, method, req)
		if err != nil {
			if why := v.notReady(r.Params.Name); why != nil {
				return toolError(why), nil
			}
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

// notReady says why a tool the view does not list may be of a server in
// the key's scope that is not ready: its tools leave the view while it
// reconnects, and an agent calling one meanwhile is told that, not that
// the tool is unknown. It is nil for any other name.
func (v *view) notReady(name string) error {
	id := v.only
	if id == "" {
		var ok bool
		if id, _, ok = strings.Cut(name, "__"); !ok {
			return nil
		}
	}
	st, ok := v.state(id)
	if !ok || st.State == wire.StateReady || !v.grant.Load().AllowsServer(id) {
		return nil
	}
	how := "is still connecting"
	if st.State == wire.StateFailed {
		how = "could not be connected"
	}
	msg := fmt.Sprintf("the server %s %s: its tools are back once the relay has reconnected it", wire.Sanitize(st.Name, 100), how)
	if st.Error != "" {
		msg += " (" + st.Error + ")"
	}
	return wire.NewError(wire.CodeNotReady, msg)
}

// appServer is the server whose App view exposed names, a ui:// URI as the
// view names it, when that server is on the view: views are read through
// the view whether or not the server lists them.
func (v *view) appServer(exposed string) (string, bool) {
	id, uri := v.only, exposed
	if v.only == "" {
		var ok bool
		if id, uri, ok = upstreamURI(exposed); !ok {
			return "", false
		}
	}
	if !strings.HasPrefix(uri, "ui://") {
		return "", false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	e := v.shown[id]
	return id, e != nil && (e.tools != nil || e.resources != nil)
}
