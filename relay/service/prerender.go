package service

import (
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/dashboard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// pageState gives the dashboard the state of the person a page request has
// a valid session for (the cookie, as the WebSocket would read it), so that
// their first screen is prerendered with their servers (a replica does so
// only for the users it owns). An agent's token
// opens no dashboard, here neither.
func (s *Service) pageState(verifier *authn.Verifier) dashboard.StateFunc {
	return func(r *http.Request) (wire.Snapshot, bool) {
		claims, present, err := verifier.FromRequest(r)
		if !present || err != nil || s.router != nil && !s.router.Owns(claims.User) {
			return wire.Snapshot{}, false // another replica's user: the socket brings the state
		}
		snap, _ := s.sessions.Session(claims.User).Snapshot()
		return snap, true
	}
}
