package service

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/chat"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/replica"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// relayKey is the key the relay signs sessions with: in a shared store
// (PostgreSQL) the store's, which every replica uses, else the key file in
// the data directory.
func (s *Service) relayKey(ctx context.Context) (ed25519.PrivateKey, error) {
	if s.store.Shared() {
		return s.store.RelayKey(ctx)
	}
	return authn.LoadOrCreateKey(filepath.Join(s.cfg.DataDir, KeyFile))
}

// initReplica makes the relay a replica: it owns users on demand, sends
// the requests of users other replicas own to them, and serves theirs for
// its own users at its internal address.
func (s *Service) initReplica(ctx context.Context, mux http.Handler, verifier *authn.Verifier) error {
	cfg := s.cfg
	switch {
	case !s.store.Shared():
		return errors.New("replicas share a PostgreSQL store: set the store (--store postgres://...) with the replica address")
	case cfg.Demo:
		return errors.New("the demo runs on one relay, not on replicas")
	}
	proofs := replica.NewProofs(s.key, cfg.Issuer)
	router, err := replica.Start(ctx, replica.Config{Store: s.store, Addr: cfg.ReplicaAddr, Users: replicaUsers{s.sessions, s.chat}, Proofs: proofs,
		Logger: cfg.Logger, IdleAfter: cfg.ReplicaIdle})
	if err != nil {
		return err
	}
	s.router = router
	s.hub.Replicas = router
	s.handler = hostGuard(cfg.AllowedHosts, s.routeUsers(mux, verifier))
	s.internal = proofs.Internal(s.handler)
	return nil
}

// replicaUsers starts and ends the people a replica takes and lets go: their
// sessions, and their chat turns.
type replicaUsers struct {
	sessions *session.Manager
	chat     *chat.Room
}

// Own starts user's session, once the turns of theirs that the replica
// which had them left running are marked interrupted.
func (u replicaUsers) Own(ctx context.Context, user string) error {
	if err := u.chat.TakeOver(ctx, user); err != nil {
		return err
	}
	return u.sessions.Own(ctx, user)
}

// Release stops user's turns and ends their session.
func (u replicaUsers) Release(user string) {
	u.chat.LetGo(user)
	u.sessions.Release(user)
}

// Busy says whether a chat turn of user runs.
func (u replicaUsers) Busy(user string) bool { return u.chat.Busy(user) }

// routeUsers serves each request that needs its user's live state at the
// user's owner: an agent's (its key names the user), a server's OAuth
// callback (its state does) and the dashboard's OAuth pages (the session
// does). The dashboard's socket is routed once it authenticated (relay/hub);
// everything else is served here, the agents' authorization server's routes
// too: a flow's state is in the store (relay/agentauth), and /authorize
// names no user anyway.
func (s *Service) routeUsers(next http.Handler, verifier *authn.Verifier) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := s.userOf(r, verifier)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		s.router.Serve(w, r, user, next)
	})
}

// userOf names the user whose owner serves r; false when r needs no owner
// or names nobody (the handler then answers it, refusing it if it must).
func (s *Service) userOf(r *http.Request, verifier *authn.Verifier) (string, bool) {
	p := r.URL.Path
	switch {
	case p == gateway.Path || strings.HasPrefix(p, gateway.ServerPath) || p == gateway.CodePath || strings.HasPrefix(p, gateway.ToolsPath):
		scheme, bearer, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return "", false
		}
		grant, err := s.agents.keys.Authenticate(r.Context(), strings.TrimSpace(bearer))
		return grant.User, err == nil
	case p == oauth.CallbackPath:
		user, err := s.store.OAuthStateUser(r.Context(), r.URL.Query().Get("state"))
		return user, err == nil
	case p == oauth.StartPath || p == oauth.HandoffPath:
		claims, present, err := verifier.FromRequest(r)
		return claims.User, present && err == nil
	}
	return "", false
}
