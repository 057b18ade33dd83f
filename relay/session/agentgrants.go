package session

import (
	"context"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Grants is the relay's OAuth authorization server as sessions use it: the
// consent a person gives an MCP client and the grants given. relay/agentauth
// satisfies it; its errors are [*wire.Error] fit to show.
type Grants interface {
	Consent(ctx context.Context, user, request string) (wire.AgentConsent, error)
	Decide(ctx context.Context, user string, a wire.AnswerAgentConsentArgs) (wire.AnswerAgentConsentResult, error)
	ListGrants(ctx context.Context, user string) ([]wire.AgentGrant, error)
	RevokeGrant(ctx context.Context, user, id string) error
}

// UseGrants makes the sessions answer the consent and grant ops with g.
// Call it before any session exists.
func (m *Manager) UseGrants(g Grants) { m.grants = g }

// grantsOp runs the consent and grant ops.
func (s *Session) grantsOp(ctx context.Context, f wire.Frame) (any, error) {
	g := s.m.grants
	if g == nil {
		return nil, wire.NewError(wire.CodeUnknownOp, "this relay is not an authorization server for agents")
	}
	switch f.Op {
	case wire.OpAgentConsent:
		return withArgs(f.Data, func(a wire.AgentConsentArgs) (any, error) { return g.Consent(ctx, s.user, a.Request) })
	case wire.OpAnswerAgentConsent:
		return withArgs(f.Data, func(a wire.AnswerAgentConsentArgs) (any, error) { return g.Decide(ctx, s.user, a) })
	case wire.OpRevokeAgentGrant:
		return withArgs(f.Data, func(a wire.AgentGrantArgs) (any, error) { return struct{}{}, g.RevokeGrant(ctx, s.user, a.ID) })
	default:
		grants, err := g.ListGrants(ctx, s.user)
		if grants == nil {
			grants = []wire.AgentGrant{}
		}
		return wire.AgentGrantsResult{Grants: grants}, err
	}
}
