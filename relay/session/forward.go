package session

import (
	"context"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Forwarding sampling to an agent ([wire.OpForwardAsk]): a sampling ask
// raised during an agent's call, whose key and client allow it, may be
// handed on the person's click to the agent's own client; its reply is the
// answer. The connection offers it ([conn.ForwarderOf]), the broker keeps
// it with the ask and runs it, and the server's activity notes that the
// agent answered. In [wire.SamplingModel] mode the model answers instead,
// and nothing is offered.

// AgentSampler is an agent's own client; see [conn.AgentSampler].
type AgentSampler = conn.AgentSampler

// withForward passes the forwarder of the sampling ask asked under ctx, if
// any, on to the broker.
func withForward(ctx context.Context) context.Context {
	if f := conn.ForwarderOf(ctx); f != nil {
		return broker.WithForward(ctx, broker.Forward(f))
	}
	return ctx
}

// forwardAsk hands the pending sampling ask of args to its agent's client.
func (s *Session) forwardAsk(ctx context.Context, args wire.AskArgs) (any, error) {
	a, err := s.broker.Forward(ctx, args.Ask)
	if err != nil {
		return nil, err
	}
	s.noteActivity(a.Server, wire.ActivitySamplingForwarded, forwardedText(a))
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
