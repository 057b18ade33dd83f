package oauth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// authorized connects ann's s1 to the world's resource and authorizes it.
func authorized(t *testing.T, w *world) (*conn.Conn, *recorder) {
	t.Helper()
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	return c, r
}

func TestTokenIsRefreshedBeforeItExpires(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, _ := authorized(t, w)
	before, _ := w.token("ann", "s1")
	if before.RefreshToken == "" || before.Expiry.IsZero() {
		t.Fatalf("token %v has no refresh token or expiry", before.Expiry)
	}
	w.clock.advance(oauthfixture.DefaultTokenLifetime - 30*time.Second) // inside the refresh margin
	echo(t, c, "fresh")
	if n := w.as.Stats().Refreshes; n != 1 {
		t.Fatalf("%d refreshes, want 1", n)
	}
	after, _ := w.token("ann", "s1")
	if after.AccessToken == before.AccessToken || after.RefreshToken == before.RefreshToken {
		t.Error("the stored token did not change with the refresh")
	}
	reqs := w.rs.Requests()
	if last := reqs[len(reqs)-1]; last.Token != after.AccessToken {
		t.Error("the call did not carry the refreshed token")
	}
	for _, tr := range w.as.TokenRequests() {
		if tr.GrantType == "refresh_token" && tr.Resource != w.rs.URL() {
			t.Errorf("refresh request %+v without the resource", tr)
		}
	}
	for _, req := range reqs {
		if req.Token == before.AccessToken && req.Status != 0 {
			t.Errorf("the old token was refused (%d): it should not have been sent after expiring", req.Status)
		}
	}
}

func TestShortLivedTokenIsRefreshedAtHalfItsLifeNotAtEveryRequest(t *testing.T) {
	const lifetime = 20 * time.Second // shorter than the one-minute margin
	w := newWorld(t, oauthfixture.AuthConfig{TokenLifetime: lifetime}, readScope)
	c, _ := authorized(t, w)
	echo(t, c, "one")
	echo(t, c, "two")
	if n := w.as.Stats().Refreshes; n != 0 {
		t.Fatalf("%d refreshes of a fresh 20s token, want 0", n)
	}
	w.clock.advance(lifetime/2 + time.Second)
	echo(t, c, "three")
	if n := w.as.Stats().Refreshes; n != 1 {
		t.Fatalf("%d refreshes past half the token's life, want 1", n)
	}
}

func TestTokenIsRefreshedWhenTheServerAnswers401(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := authorized(t, w)
	w.as.RevokeAccessTokens()
	echo(t, c, "after revocation")
	if n := w.as.Stats().Refreshes; n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if n := w.as.Stats().Authorizations; n != 1 {
		t.Errorf("%d authorizations, want still 1", n)
	}
	for _, s := range r.All() {
		if s.State == wire.StateAuthenticating && s.Auth != nil && s.Auth.Authorized {
			t.Errorf("the refresh showed the server as authenticating: %+v", s.Auth)
		}
	}
}

func TestFailedRefreshMovesTheServerBackToAuthenticating(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := authorized(t, w)
	w.as.RevokeAccessTokens()
	w.as.RevokeRefreshTokens()
	_, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: oauthfixture.ToolEcho, Arguments: json.RawMessage(`{"text":"x"}`)}, nil)
	if err == nil {
		t.Fatal("the call succeeded without a valid token")
	}
	waiting := r.Await("authenticating again", func(s conn.State) bool {
		return s.State == wire.StateAuthenticating && s.Auth != nil && !s.Auth.Authorized
	})
	if !strings.Contains(waiting.Auth.Error, "could not be renewed") || !strings.Contains(waiting.Auth.Error, "invalid_grant") {
		t.Errorf("auth error %q, want the failed renewal", waiting.Auth.Error)
	}
	if _, ok := w.token("ann", "s1"); ok {
		t.Error("the dead token is still stored")
	}
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	echo(t, c, "back")
}

func TestExpiredTokenWithoutRefreshTokenNeedsAuthorization(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ScopesSupported: []string{"mcp:read", oauthfixture.ScopeOfflineAccess}},
		oauthfixture.ResourceConfig{Scopes: []string{"mcp:read"}})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	// Ask without offline_access: no refresh token is issued.
	ctx := context.Background()
	u, err := w.mgr.Authorize(ctx, "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	u = strings.Replace(u, "+offline_access", "", 1)
	cb, err := oauthfixture.Approve(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.mgr.Callback(ctx, cb); err != nil {
		t.Fatal(err)
	}
	r.AwaitState(wire.StateReady)
	if tok, _ := w.token("ann", "s1"); tok.RefreshToken != "" {
		t.Fatal("a refresh token was issued without offline_access")
	}
	w.clock.advance(2 * oauthfixture.DefaultTokenLifetime)
	if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: oauthfixture.ToolEcho, Arguments: json.RawMessage(`{"text":"x"}`)}, nil); err == nil {
		t.Fatal("a call went through with an expired token")
	}
	waiting := r.Await("authenticating", func(s conn.State) bool { return s.State == wire.StateAuthenticating })
	if waiting.Auth == nil || waiting.Auth.Authorized || !strings.Contains(waiting.Auth.Error, "expired") {
		t.Errorf("auth %+v, want the expiry", waiting.Auth)
	}
}

// flakyTokenEndpoint stands in front of an authorization server's token
// endpoint and answers with fail while it is set, else passes requests on.
type flakyTokenEndpoint struct {
	srv  *httptest.Server
	mu   sync.Mutex
	fail http.HandlerFunc
	hits int
}

func newFlakyTokenEndpoint(t *testing.T, as *oauthfixture.AuthServer) *flakyTokenEndpoint {
	t.Helper()
	target, err := url.Parse(as.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := &flakyTokenEndpoint{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		fail := f.fail
		f.hits++
		f.mu.Unlock()
		if fail != nil {
			fail(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *flakyTokenEndpoint) set(fail http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = fail
}

func (f *flakyTokenEndpoint) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits
}

// overFlaky authorizes ann's s1 and has its stored token refreshed through
// a flaky token endpoint from a restart on; it returns the endpoint and
// the token.
func overFlaky(t *testing.T, w *world) (*flakyTokenEndpoint, store.OAuthToken) {
	t.Helper()
	c, _ := authorized(t, w)
	c.Close()
	flaky := newFlakyTokenEndpoint(t, w.as)
	tok, _ := w.token("ann", "s1")
	tok.TokenEndpoint = flaky.srv.URL + "/token"
	if err := w.oauth.PutToken(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	w.restart()
	return flaky, tok
}

// Failures of a token endpoint.
var (
	unreachable = func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	failing = func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if body != "" {
				w.Header().Set("Content-Type", "application/json")
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
)

func TestRefreshFailingForAPassingReasonKeepsTheToken(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail http.HandlerFunc
	}{
		{"unreachable", unreachable},
		{"503", failing(http.StatusServiceUnavailable, "")},
		{"500 server_error", failing(http.StatusInternalServerError, `{"error":"server_error"}`)},
		{"429", failing(http.StatusTooManyRequests, `{"error":"slow_down"}`)},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/token", http.StatusTemporaryRedirect)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
			flaky, before := overFlaky(t, w)
			client := w.mgr.For("ann", "s1", w.rs.URL())
			ctx := context.Background()

			// Inside the margin the token still works: it is used.
			w.clock.advance(oauthfixture.DefaultTokenLifetime - 30*time.Second)
			flaky.set(tc.fail)
			if got, err := client.Token(ctx); err != nil || got != before.AccessToken {
				t.Fatalf("Token inside the margin with the refresh failing: %v, same token %v", err, got == before.AccessToken)
			}
			hits := flaky.count()
			if hits == 0 {
				t.Fatal("no refresh was tried")
			}
			if _, err := client.Token(ctx); err != nil || flaky.count() != hits {
				t.Errorf("a second request right after the failed refresh: %v, %d more tries", err, flaky.count()-hits)
			}

			// Past the expiry it fails, for now: the token is kept and no
			// person is asked.
			w.clock.advance(time.Minute)
			_, err := client.Token(ctx)
			if err == nil || !strings.Contains(err.Error(), "for now") {
				t.Errorf("Token after the expiry: %v, want a passing failure", err)
			}
			if st, _ := client.Watch(); st.Required || !st.Authorized || !strings.Contains(st.Error, "could not be renewed for now") {
				t.Errorf("status %+v, want authorized, not required, with the reason", st)
			}
			if tok, ok := w.token("ann", "s1"); !ok || tok.RefreshToken != before.RefreshToken {
				t.Fatal("the stored token or its refresh token is gone")
			}

			// Once the authorization server is back, the refresh succeeds.
			flaky.set(nil)
			w.clock.advance(time.Minute)
			fresh, err := client.Token(ctx)
			if err != nil || fresh == before.AccessToken || fresh == "" {
				t.Fatalf("Token after the recovery: %v", err)
			}
			if st, _ := client.Watch(); st.Error != "" || st.Required {
				t.Errorf("status after the recovery %+v", st)
			}
		})
	}
}

func TestRefreshRefusedByTheAuthorizationServerDropsTheToken(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail http.HandlerFunc
	}{
		{"invalid_grant", failing(http.StatusBadRequest, `{"error":"invalid_grant"}`)},
		{"invalid_client", failing(http.StatusUnauthorized, `{"error":"invalid_client"}`)},
		{"400 without an answer", failing(http.StatusBadRequest, "")},
		{"invalid_grant with another status", failing(http.StatusInternalServerError, `{"error":"invalid_grant"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
			flaky, _ := overFlaky(t, w)
			client := w.mgr.For("ann", "s1", w.rs.URL())
			flaky.set(tc.fail)
			w.clock.advance(2 * oauthfixture.DefaultTokenLifetime)
			if _, err := client.Token(context.Background()); err == nil || !strings.Contains(err.Error(), "requires authorization") {
				t.Errorf("Token: %v, want authorization required", err)
			}
			if st, _ := client.Watch(); !st.Required || st.Authorized || !strings.Contains(st.Error, "could not be renewed") {
				t.Errorf("status %+v", st)
			}
			if _, ok := w.token("ann", "s1"); ok {
				t.Error("the refused token is still stored")
			}
		})
	}
}

func TestConnectionWaitsOutAnAuthorizationServerOutageWithoutAskingAPerson(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	flaky, _ := overFlaky(t, w)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateReady)
	flaky.set(failing(http.StatusServiceUnavailable, ""))
	w.clock.advance(2 * oauthfixture.DefaultTokenLifetime)
	w.as.RevokeAccessTokens() // the server refuses the old token too

	if _, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: oauthfixture.ToolEcho, Arguments: json.RawMessage(`{"text":"x"}`)}, nil); err == nil {
		t.Fatal("a call went through with an expired token")
	}
	shown := r.Await("the passing failure", func(s conn.State) bool {
		return s.Auth != nil && strings.Contains(s.Auth.Error, "could not be renewed for now")
	})
	if shown.Auth.Required || !shown.Auth.Authorized {
		t.Errorf("auth during the outage %+v, want authorized and not required", shown.Auth)
	}
	tries := flaky.count()

	flaky.set(nil)
	w.clock.advance(time.Minute) // past renewRetry
	echo(t, c, "back")
	r.Await("the error cleared", func(s conn.State) bool { return s.Auth != nil && s.Auth.Error == "" && s.Auth.Authorized })
	for _, s := range r.All() {
		if s.State == wire.StateAuthenticating {
			t.Errorf("the outage asked a person to authorize: %+v", s.Auth)
			break
		}
	}
	if w.as.Stats().Authorizations != 1 || flaky.count() <= tries {
		t.Errorf("%d authorizations and %d → %d refresh tries, want the first authorization and a refresh", w.as.Stats().Authorizations, tries, flaky.count())
	}
}
