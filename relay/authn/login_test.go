package authn_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// loginFixture is a Login over a real store, with its log captured.
type loginFixture struct {
	login *authn.Login
	store *store.Store
	log   *bytes.Buffer
}

func newLoginFixture(t *testing.T) *loginFixture {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	signer := authn.NewSigner(relayKey(), relayIssuer, relayAudience)
	return &loginFixture{login: authn.NewLogin(st, signer, time.Hour, logger), store: st, log: &buf}
}

// get serves GET /login?code=code, over TLS when secure.
func (f *loginFixture) get(code string, secure bool) *http.Response {
	r := httptest.NewRequest(http.MethodGet, authn.LoginPath+"?code="+url.QueryEscape(code), nil)
	if secure {
		r.TLS = &tls.ConnectionState{}
	}
	w := httptest.NewRecorder()
	f.login.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkPrivateHeaders asserts the headers every login answer carries.
func checkPrivateHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("Referrer-Policy = %q, want no-referrer", got)
	}
}

func TestLoginFirstUseSetsSessionCookieAndRedirects(t *testing.T) {
	for _, secure := range []bool{false, true} {
		f := newLoginFixture(t)
		code, err := f.login.NewCode(context.Background(), "ann", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		resp := f.get(code, secure)
		checkPrivateHeaders(t, resp)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("status %d Location %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
		}
		cookies := resp.Cookies()
		if len(cookies) != 1 {
			t.Fatalf("got %d cookies, want 1", len(cookies))
		}
		c := cookies[0]
		if c.Name != authn.CookieName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure != secure {
			t.Errorf("cookie = %+v, want HttpOnly, SameSite=Strict, Path=/, Secure=%v", c, secure)
		}
		if d := time.Until(c.Expires); d < 59*time.Minute || d > time.Hour+time.Minute {
			t.Errorf("cookie expires in %v, want the one-hour session", d)
		}
		v := authn.NewVerifier(authn.VerifierConfig{
			RelayKey: relayKey().Public().(ed25519.PublicKey),
			Issuer:   relayIssuer, Audience: relayAudience,
		})
		claims, err := v.Verify(c.Value)
		if err != nil || claims.Subject != "ann" {
			t.Errorf("session token: %+v, %v; want a valid token for ann", claims, err)
		}
		if strings.Contains(f.log.String(), code) {
			t.Error("log contains the login code")
		}
	}
}

func TestLoginRefusesCodesItCannotUse(t *testing.T) {
	ctx := context.Background()
	f := newLoginFixture(t)
	used, err := f.login.NewCode(ctx, "ann", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if resp := f.get(used, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first use: status %d", resp.StatusCode)
	}
	const expired = "an-expired-code"
	if err := f.store.PutLoginCode(ctx, expired, "ann", time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		code       string
		wantStatus int
		wantText   string
	}{
		{"second use", used, http.StatusGone, "already used"},
		{"expired code", expired, http.StatusGone, "too old"},
		{"unknown code", "no-such-code", http.StatusBadRequest, "not known"},
		{"overlong code", strings.Repeat("x", 4096), http.StatusBadRequest, "not known"},
		{"no code", "", http.StatusBadRequest, "no login code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.get(tt.code, false)
			checkPrivateHeaders(t, resp)
			text := body(t, resp)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if !strings.Contains(text, tt.wantText) || !strings.Contains(text, "<code>switchboard login</code>") {
				t.Errorf("page does not say %q and how to get a new link:\n%s", tt.wantText, text)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			if len(resp.Cookies()) != 0 || resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("error answer sets a cookie: %v", resp.Cookies())
			}
			if tt.code != "" && (strings.Contains(text, tt.code) || strings.Contains(f.log.String(), tt.code)) {
				t.Error("page or log repeats the code")
			}
		})
	}
}

func TestLoginAcceptsOnlyGET(t *testing.T) {
	f := newLoginFixture(t)
	code, err := f.login.NewCode(context.Background(), "ann", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	f.login.ServeHTTP(w, httptest.NewRequest(http.MethodPost, authn.LoginPath+"?code="+code, nil))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != http.MethodGet || len(w.Result().Cookies()) != 0 {
		t.Errorf("POST: status %d Allow %q cookies %v", w.Code, w.Header().Get("Allow"), w.Result().Cookies())
	}
	if resp := f.get(code, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the code was spent by the refused POST: GET status %d", resp.StatusCode)
	}
}

func TestLoginReportsStoreFailureAsServerError(t *testing.T) {
	f := newLoginFixture(t)
	code, err := f.login.NewCode(context.Background(), "ann", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.Close(); err != nil {
		t.Fatal(err)
	}
	resp := f.get(code, false)
	if resp.StatusCode != http.StatusInternalServerError || len(resp.Cookies()) != 0 {
		t.Errorf("status %d cookies %v, want 500 and none", resp.StatusCode, resp.Cookies())
	}
	if !strings.Contains(f.log.String(), "login: consume code") || strings.Contains(f.log.String(), code) {
		t.Errorf("log should name the failure without the code:\n%s", f.log.String())
	}
}

func TestNewCodeRefusesBadUserAndTTL(t *testing.T) {
	f := newLoginFixture(t)
	for _, tt := range []struct {
		user string
		ttl  time.Duration
	}{
		{"", time.Minute},
		{"ann\x00", time.Minute},
		{"ann", 0},
	} {
		if _, err := f.login.NewCode(context.Background(), tt.user, tt.ttl); err == nil {
			t.Errorf("NewCode(%q, %v) succeeded", tt.user, tt.ttl)
		}
	}
}

func TestNewCodeIsLongAndURLSafe(t *testing.T) {
	f := newLoginFixture(t)
	a, err := f.login.NewCode(context.Background(), "ann", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.login.NewCode(context.Background(), "ann", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 43 || a == b || url.QueryEscape(a) != a {
		t.Errorf("codes %q and %q: want two different 43-character base64url strings", a, b)
	}
}

func TestLoginPageOffersTheIdentityProvider(t *testing.T) {
	f := newLoginFixture(t)
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		f.login.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, authn.LoginPath, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get(); code != http.StatusBadRequest || strings.Contains(body, "Sign in with") {
		t.Errorf("without a provider: %d %s", code, body)
	}
	f.login.Provider = &authn.ProviderLink{Name: "login.example.com", URL: "/login/oidc"}
	code, body := get()
	if code != http.StatusOK || !strings.Contains(body, `href="/login/oidc"`) || !strings.Contains(body, "Sign in with login.example.com") || !strings.Contains(body, "switchboard login") {
		t.Errorf("with a provider: %d %s", code, body)
	}
}
