package conn

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Forwarding sampling to an agent. When the [Caller] of the call that
// raised a sampling request has a [AgentSampler] able to take it (with
// tools, if the request offers tools), the ask has Forward set and the
// context the [Asker] gets carries a [Forwarder] ([ForwarderOf]). Nothing
// is sent to the agent until someone calls it: the person's click, through
// the session. The request goes to the agent as the server sent it; the
// reply comes back converted as a request's content is (sanitized and
// capped), for the broker to check as any answer.

// AgentSampler is an agent's own MCP client, which may write the answer to
// a sampling request raised during that agent's call.
type AgentSampler struct {
	// Tools: the client accepts tools in sampling requests.
	Tools bool
	// CreateMessage sends a sampling request to the client.
	CreateMessage func(ctx context.Context, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
}

// takes reports whether s can be sent p.
func (s *AgentSampler) takes(p *mcp.CreateMessageWithToolsParams) bool {
	return s != nil && s.CreateMessage != nil && (s.Tools || len(p.Tools) == 0)
}

// Forwarder sends a pending sampling request to the agent's client and
// returns its reply. Its errors are [*wire.Error]s fit for a dashboard, or
// ctx's error.
type Forwarder func(ctx context.Context) (wire.SamplingResult, error)

type forwarderKey struct{}

// ForwarderOf returns the [Forwarder] of the sampling ask being asked under
// ctx, or nil when it cannot be forwarded.
func ForwarderOf(ctx context.Context) Forwarder {
	f, _ := ctx.Value(forwarderKey{}).(Forwarder)
	return f
}

// offerForward marks a as forwardable to s, and returns the context to ask
// it under, when s takes p; otherwise it returns ctx unchanged. The
// forwarder's sending ends when askCtx ends (the ask withdrawn or settled).
func offerForward(ctx context.Context, a *wire.Ask, s *AgentSampler, p *mcp.CreateMessageWithToolsParams) context.Context {
	if !s.takes(p) {
		return ctx
	}
	a.Forward = true
	askCtx := ctx
	f := Forwarder(func(ctx context.Context) (wire.SamplingResult, error) {
		ctx, stop := withScope(ctx, askCtx)
		defer stop()
		res, err := s.CreateMessage(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return wire.SamplingResult{}, ctx.Err()
			}
			return wire.SamplingResult{}, mcpwire.AgentFailure(err)
		}
		return mcpwire.AgentReply(res)
	})
	return context.WithValue(ctx, forwarderKey{}, f)
}
