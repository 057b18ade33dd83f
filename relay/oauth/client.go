package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Why a client cannot go on.
var (
	// errAuthorizationRequired: the server can only be reached after a
	// person authorizes again.
	errAuthorizationRequired = errors.New("the server requires authorization")
	// errRemoved: the server was removed ([Manager.Forget]).
	errRemoved = errors.New("the server was removed")
)

// renewRetry is how long after a refresh that failed for a passing reason
// (the authorization server unreachable or failing) the next one is tried;
// meanwhile a token still valid is used and an expired one fails at once.
const renewRetry = 10 * time.Second

// Client is the OAuth state of one user's server: its token, the last
// challenge, and whether a person must authorize. A connection uses it as
// its authorizer (see relay/conn): it asks for the bearer token before each
// request and reports 401 and 403 answers. Its methods are safe for
// concurrent use.
type Client struct {
	m                 *Manager
	user, server, url string

	// refreshMu allows one refresh at a time; storing a token and
	// forgetting the server happen under it too.
	refreshMu sync.Mutex

	mu         sync.Mutex
	gone       bool              // the server was removed: nothing is stored any more
	loaded     bool              // the stored token and credentials were read
	token      *store.OAuthToken // nil when there is none
	renewAfter time.Time         // no refresh before, after one failed for a passing reason
	renewErr   string            // why that one failed, sanitized
	challenge  challenge         // of the last 401
	stepUp     []string          // scopes a 403 insufficient_scope asked for, with those granted
	regrant    bool              // a machine token lacks scope: obtain another before use
	required   bool              // a person must authorize
	disc       *discovery        // the last discovery, nil before one succeeded
	ident      *identity         // the client identity last used or entered
	lastErr    string            // why the last attempt failed, sanitized
	changed    chan struct{}     // closed and replaced on every change
}

func newClient(m *Manager, user, server, serverURL string) *Client {
	return &Client{m: m, user: user, server: server, url: serverURL, changed: make(chan struct{})}
}

// load reads the stored token and pre-registered credentials once.
func (c *Client) load(ctx context.Context) {
	c.mu.Lock()
	done := c.loaded
	c.mu.Unlock()
	if done {
		return
	}
	tok, hasToken, err := c.m.store.Token(ctx, c.user, c.server)
	if err != nil {
		c.m.log.Error("read oauth token", "user", c.user, "server", c.server, "err", err)
		return
	}
	manual, hasManual, err := c.m.store.Client(ctx, c.user, c.server, store.ClientManual)
	if err != nil {
		c.m.log.Error("read oauth client", "user", c.user, "server", c.server, "err", err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded {
		return
	}
	c.loaded = true
	if hasToken {
		c.token = &tok
	}
	if hasManual {
		c.ident = &identity{source: store.ClientManual, clientID: manual.ClientID, secret: manual.ClientSecret, issuer: manual.Issuer}
	}
	c.notifyLocked()
}

// notifyLocked wakes everyone watching c.
func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Watch returns what a dashboard may know of c and a channel closed at the
// next change. The status never holds a token or a secret.
func (c *Client) Watch() (wire.AuthState, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statusLocked(), c.changed
}

func (c *Client) statusLocked() wire.AuthState {
	st := wire.AuthState{Required: c.required, Authorized: c.token != nil, Error: c.lastErr}
	switch {
	case c.disc != nil:
		st.Issuer = c.disc.issuer()
	case c.token != nil:
		st.Issuer = c.token.Issuer
	case c.ident != nil:
		st.Issuer = c.ident.issuer
	}
	switch {
	case c.required:
		st.Scopes = c.wantedScopesLocked(nil)
	case c.token != nil:
		st.Scopes = slices.Clone(c.token.Scopes)
	}
	switch {
	case c.ident != nil:
		st.ClientID, st.ClientSecretSet = c.ident.clientID, c.ident.secret != ""
	case c.token != nil:
		st.ClientID = c.token.ClientID
	}
	return st
}

// Token returns the access token to send, refreshing it first when it is
// about to expire; "" when there is none yet. It fails with
// errAuthorizationRequired when the token expired and the authorization
// server refused to renew it (a person must authorize), and with another
// error when renewing failed for a passing reason (the authorization
// server unreachable or failing): the token is kept, and a request after
// renewRetry tries again. A token still valid is used meanwhile.
func (c *Client) Token(ctx context.Context) (string, error) {
	c.load(ctx)
	c.mu.Lock()
	tok, regrant := c.token, c.regrant
	c.mu.Unlock()
	if tok == nil {
		return "", nil
	}
	if !regrant && (tok.Expiry.IsZero() || c.m.now().Add(marginFor(tok)).Before(tok.Expiry)) {
		return tok.AccessToken, nil
	}
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	now := c.m.now()
	c.mu.Lock()
	cur, retryAt, why, regrant := c.token, c.renewAfter, c.renewErr, c.regrant
	c.mu.Unlock()
	valid := cur != nil && (cur.Expiry.IsZero() || now.Before(cur.Expiry))
	if cur != nil && cur.ClientSource == sourceMachine && cur.AccessToken == tok.AccessToken {
		return c.renewMachine(ctx, cur, valid && !regrant)
	}
	switch {
	case cur == nil:
		return "", errAuthorizationRequired
	case cur.AccessToken != tok.AccessToken:
		return cur.AccessToken, nil // refreshed meanwhile
	case valid && (cur.RefreshToken == "" || now.Before(retryAt)):
		return cur.AccessToken, nil // cannot or will not refresh yet; use it while it lasts
	case cur.RefreshToken == "":
		c.drop(ctx, "the authorization expired")
		return "", errAuthorizationRequired
	case now.Before(retryAt):
		return "", &userError{msg: why}
	}
	fresh, err := c.refresh(ctx, cur)
	switch {
	case err == nil:
		return fresh, nil
	case grantRefused(err):
		c.drop(ctx, "the authorization could not be renewed: "+err.Error())
		return "", errAuthorizationRequired
	case valid:
		return cur.AccessToken, nil
	}
	return "", &userError{msg: renewFailed(err), err: err}
}

// renewFailed is the reason shown when a refresh failed for a passing
// reason, one sanitized line.
func renewFailed(err error) string {
	return wire.Sanitize("the authorization could not be renewed for now ("+err.Error()+"); the relay tries again", wire.MaxErrorMessage)
}

// Unauthorized handles a 401 answer to a request sent with token sent
// (empty for none) and challenge, its response headers. It reports whether
// a new token is there to repeat the request with: one obtained meanwhile,
// or, when canRefresh, by a refresh now. When the refresh fails for a
// passing reason the token is kept (the connection retries later);
// otherwise the token is dropped and a person must authorize.
func (c *Client) Unauthorized(ctx context.Context, sent string, challenge http.Header, canRefresh bool) bool {
	ch := parseChallenge(challenge)
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	c.mu.Lock()
	c.challenge = ch
	tok, retryAt := c.token, c.renewAfter
	c.mu.Unlock()
	if tok != nil && tok.AccessToken != sent {
		return true
	}
	if mc, err := c.machine(ctx); mc != nil || err != nil {
		return c.machineUnauthorized(ctx, mc, err, canRefresh)
	}
	reason := ""
	if tok != nil {
		reason = "the server refused the token"
		if canRefresh && tok.RefreshToken != "" {
			if c.m.now().Before(retryAt) {
				return false // the last refresh failed for a passing reason: keep the token
			}
			_, err := c.refresh(ctx, tok)
			switch {
			case err == nil:
				return true
			case !grantRefused(err):
				return false
			}
			reason = "the authorization could not be renewed: " + err.Error()
		}
	}
	c.drop(ctx, reason)
	return false
}

// InsufficientScope handles a 403 insufficient_scope answer: the next
// authorization asks for the challenge's scopes together with those already
// granted (step-up), and a person must authorize. The token is kept.
func (c *Client) InsufficientScope(challenge http.Header) {
	ch := parseChallenge(challenge)
	c.mu.Lock()
	defer c.mu.Unlock()
	var granted []string
	if c.token != nil {
		granted = c.token.Scopes
	}
	c.stepUp = union(granted, c.stepUp, ch.scopes)
	if ch.resourceMetadata != "" {
		c.challenge.resourceMetadata = ch.resourceMetadata
	}
	if c.token != nil && c.token.ClientSource == sourceMachine {
		// Machine access asks for the scopes itself, at the next request.
		c.regrant = true
		c.notifyLocked()
		return
	}
	c.required, c.lastErr = true, ""
	c.notifyLocked()
}

// Discover finds the server's authorization server when a person must
// authorize and the last discovery is missing or stale, so that the
// dashboard can show the issuer and the client in use before anyone clicks.
// Failures are reported in the state's Error.
func (c *Client) Discover(ctx context.Context) {
	c.mu.Lock()
	required := c.required
	need := required && !c.disc.freshFor(c.challenge.resourceMetadata, c.m.now())
	c.mu.Unlock()
	if required && c.machineInstead(ctx) {
		return
	}
	if !need {
		return
	}
	if _, err := c.discovery(ctx); err != nil {
		return
	}
	c.mu.Lock()
	d := c.disc
	c.mu.Unlock()
	id, err := c.m.identity(ctx, c, d, false)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err != nil:
		c.lastErr = message(err)
	case id != nil:
		c.ident = id
	}
	c.notifyLocked()
}

// discovery returns fresh metadata for the server, discovering it again
// when the cached one is stale or came from another challenge.
func (c *Client) discovery(ctx context.Context) (*discovery, error) {
	c.mu.Lock()
	d, rm := c.disc, c.challenge.resourceMetadata
	c.mu.Unlock()
	if d.freshFor(rm, c.m.now()) {
		return d, nil
	}
	d, err := c.m.discover(ctx, c.url, rm)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = message(err)
		c.notifyLocked()
		return nil, err
	}
	c.disc = d
	c.notifyLocked()
	return d, nil
}

// refresh exchanges tok's refresh token for a new token, stores it and
// makes it current. The caller holds refreshMu. A cancelled request does
// not cancel the refresh, which would lose the authorization. A failure
// for a passing reason is shown, and holds off the next refresh for
// renewRetry.
func (c *Client) refresh(ctx context.Context, tok *store.OAuthToken) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	fresh, err := c.m.refresh(ctx, c, tok)
	if err != nil {
		c.m.log.Warn("oauth refresh failed", "user", c.user, "server", c.server, "error", message(err), "final", grantRefused(err))
		if !grantRefused(err) {
			why := renewFailed(err)
			c.mu.Lock()
			c.renewAfter, c.renewErr, c.lastErr = c.m.now().Add(renewRetry), why, why
			c.notifyLocked()
			c.mu.Unlock()
		}
		return "", err
	}
	switch err := c.keep(ctx, fresh); {
	case errors.Is(err, errRemoved):
		return "", err
	case err != nil:
		// The old refresh token may be spent: use the new one while the
		// relay runs.
		c.m.log.Error("store oauth token", "user", c.user, "server", c.server, "err", err)
		c.setToken(fresh)
	}
	c.m.log.Info("oauth token refreshed", "user", c.user, "server", c.server)
	return fresh.AccessToken, nil
}

// authorized stores tok, obtained by an authorization, and makes it
// current; errRemoved when the server was removed meanwhile.
func (c *Client) authorized(ctx context.Context, tok *store.OAuthToken) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	return c.keep(ctx, tok)
}

// keep stores tok and makes it current, unless the server was removed
// (errRemoved): Forget holds refreshMu while it marks the server gone, so
// no token is stored after it deleted the server's. The caller holds
// refreshMu.
func (c *Client) keep(ctx context.Context, tok *store.OAuthToken) error {
	if c.isGone() {
		return errRemoved
	}
	if err := c.m.store.PutToken(ctx, *tok); err != nil {
		return fmt.Errorf("store oauth token: %w", err)
	}
	c.setToken(tok)
	return nil
}

// isGone reports whether the server was removed.
func (c *Client) isGone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// setToken makes tok current after an authorization or a refresh.
func (c *Client) setToken(tok *store.OAuthToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.token, c.loaded, c.renewAfter, c.renewErr = tok, true, time.Time{}, ""
	c.required, c.stepUp, c.regrant, c.lastErr = false, nil, false, ""
	c.notifyLocked()
}

// drop forgets the token (it was refused or could not be renewed): a person
// must authorize again, and reason says why. An empty reason (a request
// refused without a token) keeps the reason given before.
func (c *Client) drop(ctx context.Context, reason string) {
	c.discard(ctx, reason, true)
}

// discard forgets the token, deleting it from the store, and records
// reason (when not empty); required says whether a person must authorize
// now (not for machine access, which obtains its tokens itself).
func (c *Client) discard(ctx context.Context, reason string, required bool) {
	reason = wire.Sanitize(reason, wire.MaxErrorMessage)
	c.mu.Lock()
	had := c.token != nil
	c.token, c.stepUp, c.regrant = nil, nil, false
	c.required = c.required || required
	c.renewAfter, c.renewErr = time.Time{}, ""
	if reason != "" {
		c.lastErr = reason
	}
	c.notifyLocked()
	c.mu.Unlock()
	if !had {
		return
	}
	c.m.log.Info("oauth authorization needed again", "user", c.user, "server", c.server, "reason", reason)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	if err := c.m.store.DeleteToken(ctx, c.user, c.server); err != nil {
		c.m.log.Error("delete oauth token", "user", c.user, "server", c.server, "err", err)
	}
}

// fail records why an authorization failed, while one is still wanted: a
// late popup after a success changes nothing.
func (c *Client) fail(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.required {
		return
	}
	c.lastErr = wire.Sanitize(msg, wire.MaxErrorMessage)
	c.notifyLocked()
}

// setManual records credentials a person entered for issuer (empty id:
// removed).
func (c *Client) setManual(clientID, secret, issuer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case clientID != "":
		c.ident = &identity{source: store.ClientManual, clientID: clientID, secret: secret, issuer: issuer}
	case c.ident != nil && c.ident.source == store.ClientManual:
		c.ident = nil
	}
	c.notifyLocked()
}

// forget clears c when its server is removed and marks it gone, after a
// refresh in flight ended: nothing it obtains from now on is stored.
func (c *Client) forget() {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gone = true
	c.token, c.ident, c.disc, c.stepUp = nil, nil, nil, nil
	c.required, c.lastErr = false, ""
	c.notifyLocked()
}

// wantedScopesLocked returns the scopes the next authorization asks for:
// those of a step-up, else those of the last challenge, else the server's
// scopes_supported, else none; always with those already granted.
func (c *Client) wantedScopesLocked(d *discovery) []string {
	var granted []string
	if c.token != nil {
		granted = c.token.Scopes
	}
	if d == nil {
		d = c.disc
	}
	switch {
	case c.stepUp != nil:
		return union(granted, c.stepUp)
	case len(c.challenge.scopes) > 0:
		return union(granted, c.challenge.scopes)
	case d != nil && len(d.scopesSupported) > 0:
		return union(granted, d.scopesSupported)
	}
	return union(granted)
}

// union returns the distinct strings of lists in first-seen order; nil when
// there are none.
func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// expiresAt turns a token lifetime in seconds into a time; zero for none.
func expiresAt(now time.Time, seconds int64) time.Time {
	if seconds <= 0 {
		return time.Time{}
	}
	return now.Add(time.Duration(seconds) * time.Second)
}

// marginFor is how long before its expiry tok is refreshed: refreshMargin,
// or half its lifetime for a short-lived token, so that a token living less
// than the margin is not refreshed before every request.
func marginFor(tok *store.OAuthToken) time.Duration {
	if tok.UpdatedAt.IsZero() {
		return refreshMargin
	}
	return min(refreshMargin, tok.Expiry.Sub(tok.UpdatedAt)/2)
}
