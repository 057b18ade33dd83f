package service

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/signin"
)

// reservedPaths are routes of the relay a client metadata document may not take.
var reservedPaths = []string{"/", "/healthz", "/readyz", "/ws", "/login", signin.StartPath, signin.CallbackPath, authn.LogoutPath, oauth.CallbackPath, oauth.StartPath, oauth.HandoffPath,
	agentauth.MetadataPath, agentauth.AuthorizePath, agentauth.TokenPath, agentauth.RegisterPath, agentauth.RevokePath, agentauth.ConsentPath}

// newOAuth builds the OAuth manager: tokens and registrations sealed in the
// store, every request through hc (netguard), the callback under PublicURL.
func (s *Service) newOAuth(hc *http.Client) (*oauth.Manager, error) {
	callback := ""
	if s.cfg.PublicURL != "" {
		callback = strings.TrimRight(s.cfg.PublicURL, "/") + oauth.CallbackPath
	}
	return oauth.NewManager(oauth.Config{
		Store:             s.store.OAuth(s.store.Sealer()),
		HTTPClient:        hc,
		CallbackURL:       callback,
		ClientMetadataURL: s.cfg.OAuthClientMetadataURL,
		Clients:           s.cfg.OAuthClients,
		SuccessURL:        s.cfg.OAuthSuccessURL,
		ErrorURL:          s.cfg.OAuthErrorURL,
		Logger:            s.cfg.Logger,
		CrossApp:          s.crossApp(),
	})
}

// routeOAuth serves the start page (for the user signed in with the
// relay's session, as verifier reads it), the callback and, when
// configured, the client ID metadata document at its URL's path.
func routeOAuth(mux *http.ServeMux, auth *oauth.Manager, verifier *authn.Verifier, metadataURL string) error {
	mux.Handle("GET "+oauth.StartPath, auth.StartHandler(func(r *http.Request) string {
		claims, present, err := verifier.FromRequest(r)
		if !present || err != nil {
			return ""
		}
		return claims.User
	}))
	mux.Handle("GET "+oauth.CallbackPath, auth.CallbackHandler())
	if metadataURL == "" {
		return nil
	}
	u, err := url.Parse(metadataURL)
	if err != nil {
		return fmt.Errorf("client metadata URL: %w", err)
	}
	if strings.ContainsAny(u.Path, "{} ") {
		return fmt.Errorf("client metadata URL %s: its path may not hold braces or spaces", metadataURL)
	}
	if slices.Contains(reservedPaths, u.Path) {
		return fmt.Errorf("client metadata URL %s: the path %s is a route of the relay", metadataURL, u.Path)
	}
	mux.Handle("GET "+u.Path, auth.MetadataHandler())
	return nil
}

// dashboardAuth is the OAuth manager as sessions use it: an authorization
// a dashboard starts opens at the relay's start page, which binds it to
// the browser of the signed-in user.
type dashboardAuth struct{ *oauth.Manager }

// Authorize returns the start page of a new authorization of user's server.
func (a dashboardAuth) Authorize(ctx context.Context, user, server string) (string, error) {
	return a.AuthorizeInBrowser(ctx, user, server)
}
