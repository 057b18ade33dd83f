package agentauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Authenticate implements [agentkeys.Authenticator] for access tokens: the
// grant of a live token, bound to its resource. The grant has no expiry of
// its own: the token's is checked here on every request, and a refreshed
// token keeps the agent's MCP session.
func (s *Server) Authenticate(ctx context.Context, bearer string) (agentkeys.Grant, error) {
	g, t, err := s.cfg.Store.AgentGrantByToken(ctx, store.HashAgentToken(bearer))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return agentkeys.Grant{}, agentkeys.ErrUnauthorized
	case err != nil:
		return agentkeys.Grant{}, fmt.Errorf("authenticate agent token: %w", err)
	case t.Kind != store.TokenAccess, !g.Revoked.IsZero(), !s.cfg.Now().Before(t.Expires):
		return agentkeys.Grant{}, agentkeys.ErrUnauthorized
	}
	if err := s.cfg.Store.TouchAgentGrant(ctx, g.ID, s.cfg.Now()); err != nil {
		s.cfg.Logger.Warn("record agent grant use", "grant", g.ID, "err", err)
	}
	out := agentkeys.Grant{User: g.User, Agent: g.ClientName, KeyID: KeyID(g.ID), Resource: g.Resource, ToolMode: wire.ToolMode(g.ToolMode)}
	if !g.AllServers {
		out.Servers = g.Servers
		if out.Servers == nil {
			out.Servers = []string{}
		}
	}
	return out, nil
}
