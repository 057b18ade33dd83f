package oauth

import (
	"context"
	"crypto/rand"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// authorize builds an authorization URL for c and stores its state.
func (c *Client) authorize(ctx context.Context) (string, error) {
	m := c.m
	d, err := c.discovery(ctx)
	if err != nil {
		return "", upstream(err)
	}
	id, err := m.identity(ctx, c, d, true)
	if err != nil {
		c.fail(message(err))
		return "", upstream(err)
	}
	c.mu.Lock()
	scopes := c.wantedScopesLocked(d)
	c.mu.Unlock()
	if slices.Contains(d.asm.ScopesSupported, scopeOfflineAccess) && !slices.Contains(scopes, scopeOfflineAccess) {
		scopes = append(scopes, scopeOfflineAccess)
	}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	err = m.store.PutState(ctx, store.OAuthState{
		State: state, User: c.user, Server: c.server, RedirectURI: m.cfg.CallbackURL,
		Issuer: d.asm.Issuer, IssRequired: d.asm.AuthorizationResponseIssParameterSupported,
		TokenEndpoint: d.asm.TokenEndpoint, Resource: d.resource,
		ClientID: id.clientID, ClientSource: id.source, AuthMethod: id.method, Scopes: scopes,
		Verifier: verifier, ExpiresAt: m.now().Add(StateTTL),
	})
	if err != nil {
		m.log.Error("store oauth state", "user", c.user, "server", c.server, "err", err)
		return "", wire.NewError(wire.CodeInternal, "could not store the authorization state")
	}
	authURL, err := authorizationURL(d.asm.AuthorizationEndpoint, url.Values{
		"response_type":         {responseTypeCode},
		"client_id":             {id.clientID},
		"redirect_uri":          {m.cfg.CallbackURL},
		"state":                 {state},
		"code_challenge":        {oauth2.S256ChallengeFromVerifier(verifier)},
		"code_challenge_method": {pkceMethod},
		"resource":              {d.resource},
		"scope":                 {strings.Join(scopes, " ")},
	})
	if err != nil {
		c.fail(message(err))
		return "", upstream(err)
	}
	c.mu.Lock()
	c.ident, c.lastErr = id, ""
	c.notifyLocked()
	c.mu.Unlock()
	m.log.Info("oauth authorization started", "user", c.user, "server", c.server, "issuer", d.asm.Issuer,
		"client", id.source, "scopes", strings.Join(scopes, " "))
	return authURL, nil
}

// authorizationURL adds params to the authorization endpoint, keeping the
// endpoint's own query, dropping empty ones, and checks that the result may
// be opened.
func authorizationURL(endpoint string, params url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", &userError{msg: "the authorization endpoint is not a URL", err: err}
	}
	q := u.Query()
	for k, vs := range params {
		if len(vs) == 1 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	u.RawQuery = q.Encode()
	out := u.String()
	if _, err := urlsafe.CheckOpenable(out); err != nil {
		return "", &userError{msg: "the authorization URL cannot be opened: " + err.Error(), err: err}
	}
	return out, nil
}
