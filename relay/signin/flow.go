package signin

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

const (
	// stateCookie binds a sign-in in progress to the browser that started it.
	stateCookie = "switchboard_signin"
	// pendingTTL is how long a person has to sign in at the provider.
	pendingTTL = 10 * time.Minute
	// maxPending bounds the sign-ins in progress kept in memory.
	maxPending = 10000
)

// pending is a sign-in in progress, kept in the relay's memory by state.
type pending struct {
	nonce, verifier string
	expires         time.Time
}

// randomString returns 32 random bytes, base64url.
func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return base64.RawURLEncoding.EncodeToString(b)
}

// start sends the browser to the provider with a fresh state, nonce and
// PKCE challenge, and binds the state to the browser with a cookie.
func (p *Provider) start(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	state, nonce, verifier := randomString(), randomString(), oauth2.GenerateVerifier()
	now := time.Now()
	p.mu.Lock()
	for s, pe := range p.pending {
		if now.After(pe.expires) {
			delete(p.pending, s)
		}
	}
	full := len(p.pending) >= maxPending
	if !full {
		p.pending[state] = pending{nonce: nonce, verifier: verifier, expires: now.Add(pendingTTL)}
	}
	p.mu.Unlock()
	if full {
		writePage(w, http.StatusServiceUnavailable, pageBusy)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: stateCookie, Value: state, Path: CallbackPath, MaxAge: int(pendingTTL / time.Second),
		// Lax: the cookie must come back on the provider's top-level redirect.
		HttpOnly: true, Secure: r.TLS != nil || p.cfg.SecureCookie, SameSite: http.SameSiteLaxMode,
	})
	http.Redirect(w, r, p.oauth.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), http.StatusFound)
}

// take removes and returns the sign-in in progress of state.
func (p *Provider) take(state string) (pending, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pe, ok := p.pending[state]
	delete(p.pending, state)
	if !ok || time.Now().After(pe.expires) {
		return pending{}, false
	}
	return pe, true
}

// identity is what the relay reads from a verified ID token.
type identity struct {
	Subject       string `json:"sub"`
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
}

// callback finishes a sign-in: it checks the state against the browser's
// cookie, trades the code (with the PKCE verifier) for tokens, verifies
// the ID token and its nonce, checks the person is allowed, keeps the
// tokens sealed and starts the relay session.
func (p *Provider) callback(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Path: CallbackPath, MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil || p.cfg.SecureCookie, SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	state := q.Get("state")
	c, err := r.Cookie(stateCookie)
	if state == "" || err != nil || c.Value != state {
		writePage(w, http.StatusBadRequest, pageStale)
		return
	}
	pe, ok := p.take(state)
	if !ok {
		writePage(w, http.StatusBadRequest, pageStale)
		return
	}
	if code := q.Get("error"); code != "" {
		writePage(w, http.StatusForbidden, providerRefused(code))
		return
	}
	ctx := p.client(r.Context())
	tok, err := p.oauth.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(pe.verifier))
	if err != nil {
		p.cfg.Logger.WarnContext(ctx, "sign-in: code exchange", "err", err)
		writePage(w, http.StatusBadGateway, pageExchange)
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil || idt.Nonce != pe.nonce {
		p.cfg.Logger.WarnContext(ctx, "sign-in: ID token refused", "err", err, "nonce_matches", err == nil && idt.Nonce == pe.nonce)
		writePage(w, http.StatusBadGateway, pageBadToken)
		return
	}
	var who identity
	var all map[string]any
	if err := idt.Claims(&who); err != nil || idt.Claims(&all) != nil {
		writePage(w, http.StatusBadGateway, pageBadToken)
		return
	}
	if refusal, ok := p.allowed(who, all); !ok {
		p.cfg.Logger.InfoContext(ctx, "sign-in: refused", "issuer", p.cfg.Issuer, "subject", who.Subject, "why", refusal.Title)
		writePage(w, http.StatusForbidden, refusal)
		return
	}
	user := p.UserID(who.Subject)
	err = p.cfg.Tokens.Put(ctx, store.IdentityToken{User: user, Issuer: p.cfg.Issuer, IDToken: raw, RefreshToken: tok.RefreshToken, Expiry: idt.Expiry})
	if err == nil {
		err = p.cfg.Sessions.Start(w, r, user)
	}
	if err != nil {
		p.cfg.Logger.ErrorContext(ctx, "sign-in: start session", "user", user, "err", err)
		writePage(w, http.StatusInternalServerError, pageInternal)
		return
	}
	p.cfg.Logger.InfoContext(ctx, "sign-in: session started", "user", user)
	// A page rather than a redirect: the session cookie is SameSite=Strict,
	// and a redirect chain that began at the provider would not carry it.
	writePage(w, http.StatusOK, pageSignedIn)
}

// allowed reports whether the person of the ID token may use the relay,
// and if not the page that says why.
func (p *Provider) allowed(who identity, claims map[string]any) (page, bool) {
	if len(p.cfg.AllowedDomains) > 0 {
		_, domain, _ := strings.Cut(who.Email, "@")
		switch {
		case who.Email == "":
			return pageNoEmail, false
		case !who.EmailVerified:
			return pageUnverified, false
		case !slices.ContainsFunc(p.cfg.AllowedDomains, func(d string) bool { return strings.EqualFold(d, domain) }):
			return domainRefused(domain), false
		}
	}
	if len(p.cfg.AllowedGroups) > 0 {
		groups := stringsOf(claims[p.cfg.GroupsClaim])
		if !slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(p.cfg.AllowedGroups, g) }) {
			return pageNoGroup, false
		}
	}
	return page{}, true
}

// stringsOf reads a claim that is a string or a list of strings.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Logout ends the relay session and, when the provider offers it, sends
// the browser on to end the session at the provider too: by a page that
// goes there, since the dashboard's form may not redirect to another
// origin. The caller has checked that the request came from the relay's
// own pages.
func (p *Provider) Logout(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	user := p.cfg.Sessions.End(w, r)
	u, err := url.Parse(p.endSession)
	if p.endSession == "" || user == "" || err != nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	q := u.Query()
	q.Set("client_id", p.cfg.ClientID)
	q.Set("post_logout_redirect_uri", strings.TrimRight(p.cfg.PublicURL, "/")+"/login")
	u.RawQuery = q.Encode()
	p.cfg.Logger.InfoContext(r.Context(), "sign-out", "user", user)
	writePage(w, http.StatusOK, page{Title: "Signed out", Message: "You are signed out of Switchboard; now signing out at the identity provider.", Next: u.String()})
}

// errNoToken is IDToken's answer for a user who never signed in with the provider.
var errNoToken = errors.New("the user has not signed in with the identity provider")
