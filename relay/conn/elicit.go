package conn

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Elicitation (see asker.go). The go-sdk decodes a requested schema into a
// map, which loses the order of its properties; the asker gets it in the
// order the server sent (relay/readalong), or in key order when that was
// not seen. An accepted URL elicitation stays waiting for
// notifications/elicitation/complete (routed to [Asker.Complete]) as long
// as its session lives.

// Caps on what a server can put in an ask.
const (
	// maxURLRequired caps the URL elicitations of one -32042 error.
	maxURLRequired = 8
	// maxURLRequiredRounds caps how often one operation is retried after
	// URL elicitations it required were completed.
	maxURLRequiredRounds = 3
)

// elicits reports whether c advertises elicitation at all.
func (c *Conn) elicits() bool {
	return c.cfg.Asker != nil && (c.cfg.Modes.Form || c.cfg.Modes.URL)
}

// capabilities are the client capabilities c advertises: elicitation in
// the configured modes, sampling with tools when configured, nothing else.
func (c *Conn) capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{RootsV2: rootsCapability()}
	if c.cfg.Apps {
		caps.AddExtension(wire.AppsExtension, map[string]any{"mimeTypes": []string{wire.AppMIMEType}})
	}
	if c.samples() {
		caps.Sampling = &mcp.SamplingCapabilities{Tools: &mcp.SamplingToolsCapabilities{}}
	}
	if !c.elicits() {
		return caps
	}
	caps.Elicitation = &mcp.ElicitationCapabilities{}
	if c.cfg.Modes.Form {
		caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
	}
	if c.cfg.Modes.URL {
		caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
	}
	return caps
}

// elicitationHandler is the go-sdk's ElicitationHandler of c: nil when c
// does not elicit, so that the go-sdk refuses elicitation requests.
func (c *Conn) elicitationHandler() func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if !c.elicits() {
		return nil
	}
	return c.elicit
}

// elicitationCompleteHandler routes notifications/elicitation/complete to
// the asker, when c advertises URL mode.
func (c *Conn) elicitationCompleteHandler() func(context.Context, *mcp.ElicitationCompleteNotificationRequest) {
	if !c.elicits() || !c.cfg.Modes.URL {
		return nil
	}
	return func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
		if req.Params != nil && req.Params.ElicitationID != "" {
			c.cfg.Asker.Complete(req.Params.ElicitationID)
		}
	}
}

// elicit answers an elicitation/create request, or an input request of the
// 2026-07-28 protocol, by asking the asker. The go-sdk has checked the
// request's shape; the connection checks the mode.
func (c *Conn) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	if mode := elicitMode(p); !c.cfg.Modes.allows(mode) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q is not supported", mode)}
	}
	p, err := c.inServerOrder(p)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	scope := c.scope(req.Session)
	ctx, stop := withScope(ctx, scope)
	defer stop()
	ctx, done := c.onBehalf(ctx, methodElicit, req.Params)
	defer done()
	ans, err := c.cfg.Asker.Elicit(ctx, p, originOf(ctx))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err() // withdrawn: nobody waits for the answer
	case err != nil:
		return nil, err
	}
	if ans.Wait != nil {
		// The ask waits for the URL's completion as long as the session
		// lives; the server has its answer now.
		go ans.Wait(scope)
	}
	return ans.Result, nil
}

// inServerOrder returns p with its requested schema encoded in the
// server's key order, when it has one.
func (c *Conn) inServerOrder(p *mcp.ElicitParams) (*mcp.ElicitParams, error) {
	if p.RequestedSchema == nil {
		return p, nil
	}
	raw, err := c.ra.Schemas.Ordered(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	q := *p
	q.RequestedSchema = json.RawMessage(raw)
	return &q, nil
}

// elicitMode is the request's mode; unset means form, as for the go-sdk's
// client.
func elicitMode(p *mcp.ElicitParams) string {
	if p.Mode == "" {
		return modeForm
	}
	return p.Mode
}

// scope returns the context that ends with the live session cs, or an ended
// one when cs is not (or no longer) the live session: an elicitation must
// not outlive its session, whose close waits for it.
func (c *Conn) scope(cs *mcp.ClientSession) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil && c.live.cs == cs {
		return c.live.ctx
	}
	return endedContext
}

// endedContext is a context that has ended.
var endedContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// withScope returns ctx, also ended when scope ends.
func withScope(ctx, scope context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(scope, func() { cancel(context.Cause(scope)) })
	return ctx, func() { stop(); cancel(nil) }
}

// inputLane marks the context of a tools/call, prompts/get or
// resources/read, whose input requests (2026-07-28) the go-sdk hands to the
// elicitation and sampling handlers under it.
type inputLane struct{}

// originOf says whether a request handled under ctx came as an input
// request or as a request of the server's.
func originOf(ctx context.Context) Origin {
	if ctx.Value(inputLane{}) != nil {
		return FromInput
	}
	return FromRequest
}
