package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Authorizer is OAuth for one server's connection: the bearer token of each
// request and what to do when the server refuses it. *oauth.Client
// implements it. Its status never holds a token or a secret.
type Authorizer interface {
	// Token returns the access token to send, "" for none yet. It fails when
	// the token expired and could not be renewed; a person must authorize.
	Token(ctx context.Context) (string, error)
	// Unauthorized handles a 401 answer to a request sent with token sent
	// and challenge, the answer's headers. It reports whether there is a new
	// token to repeat the request with (refreshing only when canRefresh);
	// otherwise a person must authorize.
	Unauthorized(ctx context.Context, sent string, challenge http.Header, canRefresh bool) bool
	// InsufficientScope handles a 403 insufficient_scope answer: a person
	// must authorize more scope (step-up).
	InsufficientScope(challenge http.Header)
	// Discover prepares what the status shows (the authorization server,
	// the client) while a person must authorize.
	Discover(ctx context.Context)
	// Watch returns the status and a channel closed at its next change.
	Watch() (wire.AuthState, <-chan struct{})
}

// Authorization facts of a connection.
const (
	// maxAuthRounds is how many authorizations one operation (a connection
	// attempt until ready, or an op) may go through before it gives up.
	maxAuthRounds = 3
	// stepUpWait bounds how long an op waits for a person to grant more scope.
	stepUpWait = 10 * time.Minute
	// authDiscoverTimeout bounds the discovery done before showing the
	// authorization as needed.
	authDiscoverTimeout  = 30 * time.Second
	headerAuthorization  = "Authorization"
	errInsufficientScope = "insufficient_scope"
)

// errAuthRequired ends a request that cannot go on until a person authorizes.
var errAuthRequired = errors.New("the server requires authorization")

// errAuthGaveUp ends an operation the server kept refusing after
// maxAuthRounds authorizations.
var errAuthGaveUp = errors.New("the server still refuses access after 3 authorizations")

// ownRequests marks the context of the connection's own requests
// (handshake, discovery, health checks), which fail at once when a person
// must authorize; an op's requests wait for a step-up instead.
type ownRequests struct{}

// ownContext returns the root context of a connection's own requests.
func ownContext() context.Context {
	return context.WithValue(context.Background(), ownRequests{}, true)
}

// authTransport adds the bearer token to every request for the server's
// origin and handles 401 and 403 answers. It serves the Streamable HTTP and
// the SSE transports alike (the go-sdk's own OAuth hook exists only in the
// former).
type authTransport struct {
	base   http.RoundTripper
	auth   Authorizer
	origin string // scheme://host[:port] of the server; the token goes nowhere else
	// needed is set when a request ended because a person must authorize;
	// the connection's run loop takes it after a failed attempt.
	needed atomic.Bool
}

// withAuth returns a copy of hc whose transport carries c's authorization;
// hc itself without one.
func (c *Conn) withAuth(hc *http.Client) *http.Client {
	if c.cfg.Auth == nil {
		return hc
	}
	return wrapTransport(hc, func(base http.RoundTripper) http.RoundTripper {
		c.auth = &authTransport{base: base, auth: c.cfg.Auth, origin: origin(c.cfg.URL)}
		return c.auth
	})
}

// origin returns scheme://host of raw, lower case.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// RoundTrip implements [http.RoundTripper].
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin(req.URL.String()) != t.origin {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	refreshed, rounds := false, 0
	for attempt := 0; ; attempt++ {
		token, err := t.auth.Token(ctx)
		if err != nil {
			t.needed.Store(true)
			return nil, err
		}
		r, err := withBearer(req, token, attempt > 0)
		if err != nil {
			return nil, err
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		repeatable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			discard(resp)
			if t.auth.Unauthorized(ctx, token, resp.Header, !refreshed) && repeatable && !refreshed {
				refreshed = true
				continue
			}
			t.needed.Store(true)
			if st, _ := t.auth.Watch(); !st.Required && st.Error != "" {
				// No person can help (machine access): say why.
				return nil, fmt.Errorf("%w: %s", errAuthRequired, st.Error)
			}
			return nil, errAuthRequired
		case resp.StatusCode == http.StatusForbidden && insufficientScope(resp.Header):
			if !repeatable {
				return resp, nil
			}
			discard(resp)
			if rounds >= maxAuthRounds {
				// An error, not the 403: the go-sdk ends a session on an
				// HTTP error status, while this concerns one request.
				return nil, errAuthGaveUp
			}
			t.auth.InsufficientScope(resp.Header)
			if ctx.Value(ownRequests{}) != nil {
				t.needed.Store(true)
				return nil, errAuthRequired
			}
			if err := t.awaitAuthorization(ctx); err != nil {
				return nil, err
			}
			rounds++
			refreshed = false
			continue
		}
		return resp, nil
	}
}

// awaitAuthorization waits until a person has authorized (the status no
// longer requires it), ctx ends or stepUpWait passes.
func (t *authTransport) awaitAuthorization(ctx context.Context) error {
	timeout := time.NewTimer(stepUpWait)
	defer timeout.Stop()
	for {
		st, changed := t.auth.Watch()
		switch {
		case !st.Required && st.Authorized:
			return nil
		case !st.Required:
			return errAuthRequired
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout.C:
			return errAuthRequired
		case <-changed:
		}
	}
}

// withBearer returns a copy of req carrying token ("" for none); again
// rewinds the body for a repeated request. A first request without a token
// or an Authorization header needs no change: it is req itself, so that a
// long stream does not hold a copy of its request.
func withBearer(req *http.Request, token string, again bool) (*http.Request, error) {
	if token == "" && !again && req.Header.Values(headerAuthorization) == nil {
		return req, nil
	}
	r := req.Clone(req.Context())
	if again && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if token == "" {
		r.Header.Del(headerAuthorization)
	} else {
		r.Header.Set(headerAuthorization, "Bearer "+token)
	}
	return r, nil
}

// discard drains a little of a refused answer's body and closes it, so the
// connection can be reused.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrainBytes))
	resp.Body.Close()
}

// maxDrainBytes is how much of a refused answer is read before closing it.
const maxDrainBytes = 64 << 10

// insufficientScope reports whether a 403's Bearer challenge asks for more
// scope: error="insufficient_scope" (RFC 6750), or no error but a scope,
// which some servers send for the same purpose.
func insufficientScope(h http.Header) bool {
	cs, err := oauthex.ParseWWWAuthenticate(h.Values("WWW-Authenticate"))
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		switch c.Params["error"] {
		case errInsufficientScope:
			return true
		case "":
			if strings.TrimSpace(c.Params["scope"]) != "" {
				return true
			}
		}
	}
	return false
}

// authState returns the auth part of the connection's state: nil when the
// server never asked for OAuth and nothing is configured.
func (c *Conn) authState() *wire.AuthState {
	if c.cfg.Auth == nil {
		return nil
	}
	st, _ := c.cfg.Auth.Watch()
	if !st.Required && !st.Authorized && st.Issuer == "" && st.ClientID == "" && st.Error == "" {
		return nil
	}
	return &st
}

// authNeeded reports, after a failed attempt, whether it failed because a
// person must authorize.
func (c *Conn) authNeeded() bool {
	if c.auth == nil || !c.auth.needed.Swap(false) {
		return false
	}
	st, _ := c.cfg.Auth.Watch()
	return st.Required
}

// authChanges returns the channel of the next status change; nil (never
// ready) without OAuth.
func (c *Conn) authChanges() <-chan struct{} {
	if c.cfg.Auth == nil {
		return nil
	}
	_, changed := c.cfg.Auth.Watch()
	return changed
}

// authChanged folds a status change into a ready connection: a lost
// authorization ends the session; a step-up an op waits for shows the
// server as authenticating until it is granted.
func (c *Conn) authChanged() error {
	st, _ := c.cfg.Auth.Watch()
	if st.Required && !st.Authorized {
		c.auth.needed.Store(true)
		return failure(stepLost, errAuthRequired)
	}
	if st.Required {
		c.setState(wire.StateAuthenticating)
	} else {
		c.setState(wire.StateReady)
	}
	return nil
}

// awaitAuth shows that a person must authorize and waits until one has
// (then the connection reconnects at once), Retry is called, or c closes,
// which it reports as false. rounds counts the authorizations of the
// current operation; past maxAuthRounds the connection fails and waits for
// Retry alone.
func (c *Conn) awaitAuth(rounds *int) bool {
	if *rounds >= maxAuthRounds {
		*rounds = 0
		c.fail(errAuthGaveUp)
		select {
		case <-c.ctx.Done():
			return false
		case <-c.retry:
			return true
		}
	}
	ctx, cancel := context.WithTimeout(c.ctx, authDiscoverTimeout)
	c.cfg.Auth.Discover(ctx)
	cancel()
	c.setState(wire.StateAuthenticating)
	for {
		st, changed := c.cfg.Auth.Watch()
		if !st.Required {
			if st.Authorized {
				*rounds++
			}
			return true
		}
		c.publish()
		select {
		case <-c.ctx.Done():
			return false
		case <-c.retry:
			*rounds = 0
			return true
		case <-changed:
		}
	}
}
