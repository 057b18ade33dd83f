package agentauth

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ListGrants returns the user's grants for the Agents view.
func (s *Server) ListGrants(ctx context.Context, user string) ([]wire.AgentGrant, error) {
	recs, err := s.cfg.Store.AgentGrants(ctx, user)
	if err != nil {
		s.cfg.Logger.Error("list agent grants", "err", err)
		return nil, wire.NewError(wire.CodeInternal, "could not list the grants; see the relay log")
	}
	out := make([]wire.AgentGrant, len(recs))
	for i, g := range recs {
		out[i] = wire.AgentGrant{
			ID: g.ID, ClientName: g.ClientName, ClientID: g.ClientID, ClientHost: g.ClientHost, Endpoint: g.Resource,
			AllServers: g.AllServers, Servers: g.Servers, ToolMode: wire.ToolMode(g.ToolMode), Created: g.Created, LastUsed: g.LastUsed, Revoked: g.Revoked,
		}
	}
	return out, nil
}

// RevokeGrant revokes the user's grant id: its tokens stop working at once
// and its agent's live sessions close.
func (s *Server) RevokeGrant(ctx context.Context, user, id string) error {
	err := s.cfg.Store.RevokeAgentGrant(ctx, user, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.NewError(wire.CodeNotFound, "no such grant")
	case errors.Is(err, store.ErrGrantRevoked):
		return wire.NewError(wire.CodeBadRequest, "this grant is already revoked")
	case err != nil:
		s.cfg.Logger.Error("revoke agent grant", "err", err)
		return wire.NewError(wire.CodeInternal, "could not revoke the grant; see the relay log")
	}
	s.cfg.Logger.Info("agent grant revoked", "user", user, "grant", id)
	s.closed(id)
	return nil
}
