package agentauth

import (
	"context"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// HandleOps registers the dashboard's ops on agents' authorizations: show
// a pending consent, answer it, list the grants given, revoke one.
func (s *Server) HandleOps(mux *ops.Mux) {
	mux.Handle(wire.OpAgentConsent, ops.With(func(ctx context.Context, user string, a wire.AgentConsentArgs) (any, error) {
		return s.Consent(ctx, user, a.Request)
	}))
	mux.Handle(wire.OpAnswerAgentConsent, ops.With(func(ctx context.Context, user string, a wire.AnswerAgentConsentArgs) (any, error) {
		return s.Decide(ctx, user, a)
	}))
	mux.Handle(wire.OpListAgentGrants, func(ctx context.Context, r ops.Request) (any, error) {
		grants, err := s.ListGrants(ctx, r.User)
		if grants == nil {
			grants = []wire.AgentGrant{}
		}
		return wire.AgentGrantsResult{Grants: grants}, err
	})
	mux.Handle(wire.OpRevokeAgentGrant, ops.With(func(ctx context.Context, user string, a wire.AgentGrantArgs) (any, error) {
		return struct{}{}, s.RevokeGrant(ctx, user, a.ID)
	}))
}
