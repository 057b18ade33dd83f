package service

import (
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
)

// routeEmbedOAuth serves the hand-off page an embedded dashboard's
// authorization popup opens, and the start of an authorization for the
// token that page shows (oauth.TokenStartHandler): the bearer token alone
// names the user, not a session cookie the popup may also carry, and the
// request must come from a page of the relay (Origin).
func routeEmbedOAuth(mux *http.ServeMux, auth *oauth.Manager, verifier *authn.Verifier, origins *authn.OriginPolicy) {
	mux.Handle("GET "+oauth.HandoffPath, auth.HandoffHandler())
	start := auth.TokenStartHandler(func(r *http.Request) string {
		scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || !origins.Allowed(r) {
			return ""
		}
		claims, err := verifier.Verify(strings.TrimSpace(tok))
		if err != nil || claims.Agent != nil {
			return ""
		}
		return claims.User
	})
	mux.Handle("POST "+oauth.StartPath, start)
}
