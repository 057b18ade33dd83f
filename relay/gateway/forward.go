package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// Forwarding sampling to the agent. A server may raise a sampling request
// during an agent's call; it is the person's to answer (see relay/session).
// When the agent's key allows it (Grant.ForwardSampling) and the agent's
// MCP client declared sampling, the person may also hand the request to
// that client: the call's Caller carries an AgentSampler, which sends the
// request on the call's own stream. An agent speaking 2026-07-28 cannot be
// sent a request during a call (that protocol has servers return input
// requests instead): its calls hand sampling in rounds (rounds.go).

// firstInputRequestEra is the first protocol version in which a server may
// not send requests to the client while it serves one of the client's.
const firstInputRequestEra = "2026-07-28"

// agentSampler is the agent's client as a sampler for the call w follows,
// or nil when grant or the client rule it out.
func agentSampler(grant agentkeys.Grant, w *waiter) *session.AgentSampler {
	if !grant.ForwardSampling || w.ss == nil {
		return nil
	}
	init := w.ss.InitializeParams()
	if init == nil || init.Capabilities == nil || init.Capabilities.Sampling == nil || init.ProtocolVersion >= firstInputRequestEra {
		return nil
	}
	ss, call := w.ss, w.ctx
	return &session.AgentSampler{
		Tools: init.Capabilities.Sampling.Tools != nil,
		CreateMessage: func(ctx context.Context, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
			// The call's context carries the id of the agent's request, which
			// puts the request on that request's stream; ctx ends it.
			sctx, cancel := context.WithCancel(context.WithoutCancel(call))
			defer cancel()
			stop := context.AfterFunc(ctx, cancel)
			defer stop()
			stopCall := context.AfterFunc(call, cancel)
			defer stopCall()
			out := *p
			out.Meta = withoutNewMeta(p.Meta)
			return ss.CreateMessageWithTools(sctx, &out)
		},
	}
}
