package oauth

import (
	"context"
	"crypto/rand"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlsafe"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// pending is an authorization started and not yet finished.
type pending struct {
	state, user, server string
	authURL             string // the authorization server's URL to open
	expires             time.Time
}

// authorize builds an authorization URL for c and stores its state.
func (c *Client) authorize(ctx context.Context) (*pending, error) {
	m := c.m
	d, err := c.discovery(ctx)
	if err != nil {
		return nil, upstream(err)
	}
	id, err := m.identity(ctx, c, d, true)
	if err != nil {
		c.fail(message(err))
		return nil, upstream(err)
	}
	c.mu.Lock()
	scopes := c.wantedScopesLocked(d)
	c.mu.Unlock()
	if slices.Contains(d.asm.ScopesSupported, scopeOfflineAccess) && !slices.Contains(scopes, scopeOfflineAccess) {
		scopes = append(scopes, scopeOfflineAccess)
	}
	verifier := oauth2.GenerateVerifier()
	p := &pending{state: rand.Text(), user: c.user, server: c.server, expires: m.now().Add(stateTTL)}
	err = m.store.PutState(ctx, store.OAuthState{
		State: p.state, User: c.user, Server: c.server, RedirectURI: m.cfg.CallbackURL,
		Issuer: d.asm.Issuer, IssRequired: d.asm.AuthorizationResponseIssParameterSupported,
		TokenEndpoint: d.asm.TokenEndpoint, Resource: d.resource,
		ClientID: id.clientID, ClientSource: id.source, AuthMethod: id.method, Scopes: scopes,
		Verifier: verifier, ExpiresAt: p.expires,
	})
	if err != nil {
		m.log.Error("store oauth state", "user", c.user, "server", c.server, "err", err)
		return nil, wire.NewError(wire.CodeInternal, "could not store the authorization state")
	}
	if c.isGone() {
		// Removed meanwhile: what this authorization stored may have come
		// after Forget deleted the server's rows.
		if err := m.store.Forget(context.WithoutCancel(ctx), c.user, c.server); err != nil {
			m.log.Error("forget oauth", "user", c.user, "server", c.server, "err", err)
		}
		return nil, errNoConnection
	}
	p.authURL, err = authorizationURL(d.asm.AuthorizationEndpoint, url.Values{
		"response_type":         {responseTypeCode},
		"client_id":             {id.clientID},
		"redirect_uri":          {m.cfg.CallbackURL},
		"state":                 {p.state},
		"code_challenge":        {oauth2.S256ChallengeFromVerifier(verifier)},
		"code_challenge_method": {pkceMethod},
		"resource":              {d.resource},
		"scope":                 {strings.Join(scopes, " ")},
	})
	if err != nil {
		c.fail(message(err))
		return nil, upstream(err)
	}
	c.mu.Lock()
	c.ident, c.lastErr = id, ""
	c.notifyLocked()
	c.mu.Unlock()
	m.log.Info("oauth authorization started", "user", c.user, "server", c.server, "issuer", d.asm.Issuer,
		"client", id.source, "scopes", strings.Join(scopes, " "))
	return p, nil
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
