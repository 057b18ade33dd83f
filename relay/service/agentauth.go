package service

import (
	"net/http"
	"net/url"

	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// newAgentAuth builds the authorization server of the agent endpoint:
// client metadata documents fetched through hc (netguard), http loopback
// client ids only for a relay without a public address (or a loopback one).
func (s *Service) newAgentAuth(hc *http.Client) *agentauth.Server {
	loopback := s.cfg.PublicURL == ""
	if u, err := url.Parse(s.cfg.PublicURL); err == nil && urlnorm.IsLoopback(u.Hostname()) {
		loopback = true
	}
	return agentauth.New(agentauth.Config{
		Store:           s.store,
		Servers:         serverNames{s.sessions},
		Endpoint:        gateway.Path,
		ServerEndpoint:  gateway.ServerPath,
		CodeEndpoint:    gateway.CodePath,
		HTTPClient:      hc,
		LoopbackClients: loopback,
		PublicURL:       s.cfg.PublicURL,
		Revoked:         func(keyID string) { s.agents.keys.Closed(keyID) },
		Logger:          s.cfg.Logger,
	})
}

// serverNames reads the users' servers from their sessions.
type serverNames struct{ m *session.Manager }

// ServerName implements agentauth.Servers.
func (n serverNames) ServerName(user, id string) (string, bool) {
	for _, st := range n.m.Session(user).Servers() {
		if st.ID == id {
			return st.Name, true
		}
	}
	return "", false
}
