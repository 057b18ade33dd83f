package oauth

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxStateLen bounds a state presented to the callback before the store
// sees it.
const maxStateLen = 256

// finishTimeout bounds what follows a consumed state (the code exchange,
// storing the token): twice a request's, so that a slow exchange leaves
// the store time.
const finishTimeout = 2 * requestTimeout

// callbackError is why a callback was refused or an authorization failed.
// Its message is fit to show on the callback page.
type callbackError struct {
	msg string
	err error
}

func (e *callbackError) Error() string { return e.msg }
func (e *callbackError) Unwrap() error { return e.err }

// Why a callback is refused before anything changes.
var (
	errWrongCallback = errors.New("the callback does not match the address it was issued for")
	errWrongIssuer   = errors.New("the callback comes from another authorization server than the one asked")
)

// Callback finishes an authorization from the URL the authorization server
// sent the browser to (scheme, host, path and query). The state must be
// known, unused, unexpired and issued for this very callback origin and
// path; otherwise nothing changes. Then the state is consumed, and either
// the authorization server's refusal is recorded or the code is exchanged
// for a token, which is stored and makes the server's connection go on;
// from there on, ctx ending (the popup closed) does not stop it.
//
// Callback does not check who delivers the URL: [Manager.CallbackHandler]
// does that for browsers. A headless client calling it itself must deliver
// only redirects of authorizations it started.
func (m *Manager) Callback(ctx context.Context, callback *url.URL) error {
	q := callback.Query()
	state := stateOf(q)
	if state == "" {
		return &callbackError{msg: "This authorization response carries no valid state."}
	}
	st, err := m.store.ConsumeState(ctx, state, m.now(), func(st store.OAuthState) error {
		if !sameEndpoint(callback, st.RedirectURI) {
			return errWrongCallback
		}
		iss := q.Get("iss")
		if (iss != "" || st.IssRequired) && !issuersEqual(iss, st.Issuer) {
			return errWrongIssuer
		}
		return nil
	})
	switch {
	case errors.Is(err, store.ErrStateUnknown):
		return &callbackError{msg: "This authorization response is unknown to the relay.", err: err}
	case errors.Is(err, store.ErrStateUsed):
		return &callbackError{msg: "This authorization response was already used; nothing changed.", err: err}
	case errors.Is(err, store.ErrStateExpired):
		return &callbackError{msg: "This authorization took too long and expired; start it again from the dashboard.", err: err}
	case errors.Is(err, errWrongCallback), errors.Is(err, errWrongIssuer):
		m.log.Warn("oauth callback refused", "reason", err.Error())
		return &callbackError{msg: "This authorization response is not valid here: " + err.Error() + ".", err: err}
	case err != nil:
		m.log.Error("consume oauth state", "err", err)
		return &callbackError{msg: "The relay could not check this authorization response.", err: err}
	}
	m.starts.done(state)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	c := m.lookup(st.User, st.Server)
	if c == nil {
		m.log.Info("oauth callback for a removed server", "user", st.User, "server", st.Server)
		return &callbackError{msg: "The server of this authorization was removed; nothing was stored."}
	}
	if code := q.Get("error"); code != "" {
		msg := "the authorization server answered " + describeRefusal(code, q.Get("error_description"))
		m.log.Info("oauth authorization refused", "user", st.User, "server", st.Server, "reason", wire.Sanitize(msg, wire.MaxErrorMessage))
		c.fail(msg)
		return &callbackError{msg: "The authorization was not granted: " + msg + "."}
	}
	code := q.Get("code")
	if code == "" {
		return &callbackError{msg: "This authorization response carries no code."}
	}
	tok, err := m.exchange(ctx, c, st, code)
	if err != nil {
		msg := message(err)
		m.log.Warn("oauth code exchange failed", "user", st.User, "server", st.Server, "error", msg)
		m.dropRefusedRegistration(ctx, st, err)
		c.fail(msg)
		return &callbackError{msg: "The token could not be obtained: " + msg, err: err}
	}
	switch err := c.authorized(ctx, tok); {
	case errors.Is(err, errRemoved):
		m.log.Info("oauth token dropped: the server was removed during the exchange", "user", st.User, "server", st.Server)
		return &callbackError{msg: "The server of this authorization was removed; nothing was stored.", err: err}
	case err != nil:
		m.log.Error("store oauth token", "user", st.User, "server", st.Server, "err", err)
		return &callbackError{msg: "The relay could not store the token.", err: err}
	}
	m.log.Info("oauth authorized", "user", st.User, "server", st.Server, "issuer", st.Issuer, "scopes", strings.Join(tok.Scopes, " "))
	return nil
}

// dropRefusedRegistration forgets a dynamic registration the authorization
// server no longer knows (invalid_client), so the next authorization
// registers again instead of failing forever.
func (m *Manager) dropRefusedRegistration(ctx context.Context, st store.OAuthState, err error) {
	var te *tokenError
	if st.ClientSource != store.ClientDynamic || !errors.As(err, &te) || te.code != "invalid_client" {
		return
	}
	if err := m.store.DeleteClient(ctx, st.User, st.Server, store.ClientDynamic); err != nil {
		m.log.Error("delete oauth client", "user", st.User, "server", st.Server, "err", err)
	}
}

// sameEndpoint reports whether got has the scheme, host, port and path of
// the URL want.
func sameEndpoint(got *url.URL, want string) bool {
	w, err := url.Parse(want)
	if err != nil {
		return false
	}
	return strings.EqualFold(got.Scheme, w.Scheme) && hostPort(got) == hostPort(w) && got.EscapedPath() == w.EscapedPath()
}

// hostPort returns u's lower-case host with its port, the scheme's default
// port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
