package session

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Forwarding sampling to an agent ([wire.OpForwardAsk]): a sampling ask
// raised during an agent's call, whose key and client allow it, may be
// handed on the person's click to the agent's own client; its reply is the
// answer. When the [Agent] whose call raised a sampling request has
// an [AgentSampler] able to take it (with tools, if the request offers
// tools), the ask has Forward set and the broker keeps a forward with it.
// Nothing is sent to the agent until someone calls it: the person's click.
// The request goes to the agent as the server sent it; the reply comes back
// converted as a request's content is (sanitized and capped), for the
// broker to check as any answer, and the server's activity notes that the
// agent answered. In [wire.SamplingModel] mode the model answers instead,
// and nothing is offered.

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

// offerForward marks ask as forwardable to s, and returns the context to
// ask it under, carrying the broker's forward, when s takes p; otherwise it
// returns ctx unchanged. The forward's sending ends when the ask does
// (withdrawn or settled).
func offerForward(ctx context.Context, ask *wire.Ask, s *AgentSampler, p *mcp.CreateMessageWithToolsParams) context.Context {
	if !s.takes(p) {
		return ctx
	}
	ask.Forward = true
	askCtx := ctx
	return broker.WithForward(ctx, func(ctx context.Context) (wire.SamplingResult, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(askCtx, cancel)()
		res, err := s.CreateMessage(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return wire.SamplingResult{}, ctx.Err()
			}
			return wire.SamplingResult{}, mcpwire.AgentFailure(err)
		}
		return mcpwire.AgentReply(res)
	})
}

// forwardAsk hands the pending sampling ask of args to its agent's client.
func (s *Session) forwardAsk(ctx context.Context, args wire.AskArgs) (any, error) {
	a, err := s.broker.Forward(ctx, args.Ask)
	if err != nil {
		return nil, err
	}
	if o, ok := s.Server(a.Server); ok {
		o.noteActivity(wire.ActivitySamplingForwarded, forwardedText(a))
	}
	return struct{}{}, nil
}

// forwardedText is the activity note of a forwarded sampling ask.
func forwardedText(a wire.Ask) string {
	text := "sampling request answered by agent " + a.Agent
	if a.Tool != "" {
		text += " during its call of " + a.Tool
	}
	return text + ", on the person's word"
}
