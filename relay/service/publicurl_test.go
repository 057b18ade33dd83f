package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

// Behind an HTTPS reverse proxy the relay sees plain HTTP with the public
// Host; its public origin opens the WebSocket without --allowed-origins,
// and the session cookie is Secure.
func TestPublicHTTPSURLAllowsItsOriginAndSecuresTheCookie(t *testing.T) {
	ctx := context.Background()
	svc, err := New(ctx, Config{DataDir: t.TempDir(), PublicURL: "https://relay.example.com", AllowedHosts: []string{"relay.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ws := func(origin string) int {
		req := httptest.NewRequest(http.MethodGet, "http://relay.example.com/ws", nil)
		req.Header.Set("Origin", origin)
		rec := httptest.NewRecorder()
		svc.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	if got := ws("https://relay.example.com"); got == http.StatusForbidden {
		t.Errorf("the public origin on /ws: %d, want it past the origin check", got)
	}
	for _, o := range []string{"https://evil.example", "https://relay.example.com:8443", "https://other.example.com"} {
		if got := ws(o); got != http.StatusForbidden {
			t.Errorf("origin %s on /ws: %d, want 403", o, got)
		}
	}
	if c := loginCookie(t, svc, "http://relay.example.com"); !c.Secure || !c.HttpOnly {
		t.Errorf("session cookie over an https public URL: Secure %v, HttpOnly %v; want both", c.Secure, c.HttpOnly)
	}
}

func TestPlainHTTPPublicURLLeavesTheCookieUsableOverHTTP(t *testing.T) {
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if c := loginCookie(t, svc, "http://127.0.0.1:8080"); c.Secure {
		t.Error("session cookie over plain http is Secure: a browser would not send it back")
	}
}

// loginCookie spends a fresh login code at base and returns the session cookie set.
func loginCookie(t *testing.T, svc *Service, base string) *http.Cookie {
	t.Helper()
	link, err := svc.LoginURL(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, link, nil))
	for _, c := range rec.Result().Cookies() {
		if c.Name == authn.CookieName {
			return c
		}
	}
	t.Fatalf("login at %s set no session cookie (status %d): %s", base, rec.Code, strings.TrimSpace(rec.Body.String()))
	return nil
}
