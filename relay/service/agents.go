package service

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/activity"
	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"golang.org/x/time/rate"
)

// DefaultWatchInterval is how often the relay looks for changes other
// processes (the command line, other relays) made to its store.
const DefaultWatchInterval = time.Second

// agentsPart is the agent side of the service: keys, the call log (built
// with the sessions, which record the calls), the tool API, and the watch
// that applies changes made by the command line.
type agentsPart struct {
	keys *agentkeys.Keys
	log  *activity.Log
	api  *gateway.API
	mcp  *gateway.Gateway  // the MCP endpoint
	auth *agentauth.Server // the endpoint's OAuth authorization server

	stop context.CancelFunc
	done sync.WaitGroup
}

// initAgents builds the agent keys, the tool API and the MCP endpoint,
// registers their dashboard ops and the call log's on dashOps and mounts
// the API and the endpoint on mux.
func (s *Service) initAgents(mux *http.ServeMux, dashOps *ops.Mux, verifier *authn.Verifier, origins *authn.OriginPolicy, hc *http.Client) {
	logger := s.cfg.Logger
	a := &s.agents
	a.auth = s.newAgentAuth(hc)
	// A key that stops working ends its agent's sessions and calls on
	// both routes, built just below.
	revoked := func(keyID string) { a.api.CloseKey(keyID); a.mcp.CloseKey(keyID) }
	a.keys = &agentkeys.Keys{Store: s.store, Verifier: verifier, Tokens: a.auth, Revoked: revoked, Logger: logger}
	limits := gateway.NewLimits(rate.Limit(s.cfg.AgentRate), s.cfg.AgentBurst) // one budget per key, on every route
	a.api = &gateway.API{Auth: a.keys, Sessions: s.sessions, Origins: origins, Logger: logger, Limits: limits}
	a.mcp = gateway.New(gateway.Config{Sessions: s.sessions, Auth: a.keys, Origins: origins, Logger: logger, Protected: a.auth, Limits: limits,
		Version: buildinfo.Version()})
	a.keys.HandleOps(dashOps)
	a.log.HandleOps(dashOps)
	a.auth.HandleOps(dashOps)
	a.auth.Register(mux)
	a.api.Register(mux)
	agentRequests := tracing.Handler("agent request", a.mcp)
	mux.Handle(gateway.Path, agentRequests)
	mux.Handle(gateway.ServerPath, agentRequests)
	mux.Handle(gateway.CodePath, agentRequests)
}

// watchStore applies what other processes change in the store while the
// relay runs: servers added or removed (switchboard servers), machine
// access given (switchboard servers machine-access), keys revoked
// (switchboard agent-key revoke) and grants revoked (by another replica).
func (s *Service) watchStore() {
	ctx, cancel := context.WithCancel(context.Background())
	a := &s.agents
	a.stop = cancel
	since := time.Now()
	a.done.Go(func() {
		err := s.store.Watch(ctx, s.cfg.WatchInterval, func() {
			if err := s.sessions.Sync(ctx); err != nil {
				s.cfg.Logger.Error("sync registrations", "err", err)
			}
			s.oauth.Recheck(ctx)
			checked := time.Now()
			ids, err := s.store.RevokedAgentKeys(ctx, since.Add(-time.Second))
			if err != nil {
				s.cfg.Logger.Error("read revoked agent keys", "err", err)
				return
			}
			grants, err := s.store.RevokedAgentGrants(ctx, since.Add(-time.Second))
			if err != nil {
				s.cfg.Logger.Error("read revoked agent grants", "err", err)
				return
			}
			since = checked
			for _, id := range ids {
				a.keys.Closed(id)
			}
			for _, id := range grants { // revoked on another relay of the store
				a.keys.Closed(agentauth.KeyID(id))
			}
		})
		if err != nil && !errors.Is(err, context.Canceled) { // cancelled: the relay is closing
			s.cfg.Logger.Error("watch the store", "err", err)
		}
	})
}

// stopWatch ends the watch and waits for it, before the store closes.
func (s *Service) stopWatch() {
	if s.agents.stop != nil {
		s.agents.stop()
		s.agents.done.Wait()
	}
}

// logFlushTimeout bounds how long closing waits for the agent call log.
const logFlushTimeout = 5 * time.Second

// flushLog writes the agent calls that ended, before the store closes.
func (s *Service) flushLog() {
	if s.agents.log == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logFlushTimeout)
	defer cancel()
	s.agents.log.Flush(ctx)
}

// AgentKeys is the relay's agent authenticator and key manager, with which
// the MCP endpoint and the tool API authenticate.
func (s *Service) AgentKeys() *agentkeys.Keys { return s.agents.keys }
