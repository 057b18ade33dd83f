package agentauth

import (
	"errors"
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// serveRevoke is token revocation (RFC 7009): a refresh token revokes its
// whole grant, an access token only itself. An unknown token is no error.
func (s *Server) serveRevoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		writeError(w, http.StatusBadRequest, fail("invalid_request", "the request carries no token"))
		return
	}
	hash := store.HashAgentToken(r.PostForm.Get("token"))
	g, t, err := s.cfg.Store.AgentGrantByToken(r.Context(), hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		s.cfg.Logger.Error("revoke: read token", "err", err)
		writeError(w, http.StatusServiceUnavailable, fail("server_error", "the token could not be read"))
		return
	case r.PostForm.Get("client_id") != "" && r.PostForm.Get("client_id") != g.ClientID:
		writeError(w, http.StatusBadRequest, fail("invalid_client", "the token was issued to another client"))
		return
	case t.Kind == store.TokenRefresh:
		s.revoke(r, g.User, g.ID, "refresh token revoked by the client")
	default:
		if err := s.cfg.Store.DeleteAgentToken(r.Context(), hash); err != nil {
			s.cfg.Logger.Error("revoke access token", "err", err)
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// revoke revokes user's grant id and closes its sessions.
func (s *Server) revoke(r *http.Request, user, id, why string) {
	err := s.cfg.Store.RevokeAgentGrant(r.Context(), user, id)
	if err != nil && !errors.Is(err, store.ErrGrantRevoked) {
		s.cfg.Logger.Error("revoke agent grant", "grant", id, "err", err)
		return
	}
	s.cfg.Logger.Info("agent grant revoked", "grant", id, "why", why)
	s.closed(id)
}
