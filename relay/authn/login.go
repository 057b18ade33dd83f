package authn

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

const (
	// LoginPath is where Login is meant to be served; a login link is
	// LoginPath + "?code=" + code on the relay's address.
	LoginPath = "/login"
	// LogoutPath ends the session of the browser that POSTs to it.
	LogoutPath = "/logout"
	// codeParam is the query parameter carrying the code.
	codeParam = "code"
	// codeBytes is the entropy of a login code.
	codeBytes = 32
	// maxCodeLen bounds a presented code before it reaches the store.
	maxCodeLen = 128
)

// LoginCodes stores one-time login codes; *store.Store implements it.
//
// ConsumeLoginCode refuses a code with an error that has methods
// CodeUsed() bool and CodeExpired() bool (both false for an unknown code);
// any other error is a failure of the store itself.
type LoginCodes interface {
	PutLoginCode(ctx context.Context, code, user string, expires time.Time) error
	ConsumeLoginCode(ctx context.Context, code string, now time.Time) (user string, err error)
}

// codeRejection is the behaviour of a LoginCodes error that refuses a code.
type codeRejection interface {
	error
	CodeUsed() bool
	CodeExpired() bool
}

// Login trades one-time codes for session cookies.
type Login struct {
	// SecureCookie marks the session cookie Secure even on a request that
	// arrived over plain HTTP: the relay behind an HTTPS reverse proxy
	// (its public URL is https).
	SecureCookie bool
	// Provider, when set, is offered on the login page (a GET without a
	// code): a link to sign in with the team's identity provider.
	Provider *ProviderLink

	codes  LoginCodes
	signer *Signer
	ttl    time.Duration
	log    *slog.Logger
}

// ProviderLink is the login page's offer of an identity provider.
type ProviderLink struct {
	Name string // shown as "Sign in with Name"
	URL  string // where the sign-in starts
}

// NewLogin returns a Login whose sessions last sessionTTL; a nil logger
// means slog.Default().
func NewLogin(codes LoginCodes, signer *Signer, sessionTTL time.Duration, logger *slog.Logger) *Login {
	if logger == nil {
		logger = slog.Default()
	}
	return &Login{codes: codes, signer: signer, ttl: sessionTTL, log: logger}
}

// NewCode stores and returns a fresh code (32 random bytes, base64url) that
// logs user in once within ttl.
func (l *Login) NewCode(ctx context.Context, user string, ttl time.Duration) (string, error) {
	if err := checkSubject(user); err != nil {
		return "", fmt.Errorf("new login code: user: %w", err)
	}
	if ttl <= 0 {
		return "", fmt.Errorf("new login code: ttl %v is not positive", ttl)
	}
	b := make([]byte, codeBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new login code: %w", err)
	}
	code := base64.RawURLEncoding.EncodeToString(b)
	if err := l.codes.PutLoginCode(ctx, code, user, time.Now().Add(ttl)); err != nil {
		return "", fmt.Errorf("new login code: %w", err)
	}
	return code, nil
}

// ServeHTTP answers GET ?code=...: a valid code sets the session cookie and
// redirects to "/" with 303; any other request gets an error page and no
// cookie.
func (l *Login) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet {
		h.Set("Allow", http.MethodGet)
		writePage(w, http.StatusMethodNotAllowed, pageWrongMethod)
		return
	}
	code := r.URL.Query().Get(codeParam)
	if code == "" && l.Provider != nil {
		writePage(w, http.StatusOK, page{Title: "Sign in", Message: "Sign in to Switchboard with your team's identity provider.", Provider: l.Provider})
		return
	}
	if code == "" {
		writePage(w, http.StatusBadRequest, pageNoCode)
		return
	}
	if len(code) > maxCodeLen {
		writePage(w, http.StatusBadRequest, pageUnknown)
		return
	}
	user, err := l.codes.ConsumeLoginCode(r.Context(), code, time.Now())
	if err != nil {
		l.refuse(w, r, err)
		return
	}
	if err := l.Start(w, r, user); err != nil {
		l.log.ErrorContext(r.Context(), "login: mint session", "user", user, "err", err)
		writePage(w, http.StatusInternalServerError, pageInternal)
		return
	}
	l.log.InfoContext(r.Context(), "login: session started", "user", user)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// Start sets the session cookie of user on w, for the request r.
func (l *Login) Start(w http.ResponseWriter, r *http.Request, user string) error {
	token, err := l.signer.Mint(user, l.ttl)
	if err != nil {
		return err
	}
	http.SetCookie(w, SessionCookie(token, time.Now().Add(l.ttl), r.TLS != nil || l.SecureCookie))
	return nil
}

// End clears the session cookie on w and returns the user r was signed in
// as by verifier, "" if none.
func (l *Login) End(w http.ResponseWriter, r *http.Request, verifier *Verifier) string {
	user := ""
	if claims, present, err := verifier.FromRequest(r); present && err == nil {
		user = claims.User
	}
	c := SessionCookie("", time.Unix(0, 0), r.TLS != nil || l.SecureCookie)
	c.MaxAge = -1
	http.SetCookie(w, c)
	return user
}

// refuse writes the page for a code that did not log anyone in.
func (l *Login) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var rej codeRejection
	switch {
	case !errors.As(err, &rej):
		l.log.ErrorContext(r.Context(), "login: consume code", "err", err)
		writePage(w, http.StatusInternalServerError, pageInternal)
	case rej.CodeUsed():
		writePage(w, http.StatusGone, pageUsed)
	case rej.CodeExpired():
		writePage(w, http.StatusGone, pageExpired)
	default:
		writePage(w, http.StatusBadRequest, pageUnknown)
	}
}
