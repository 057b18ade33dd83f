package oauth_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// authorized connects ann's s1 to the world's resource and authorizes it.
func authorized(t *testing.T, w *world) (*conn.Conn, *recorder) {
	t.Helper()
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.awaitState(wire.StateAuthenticating)
	w.complete("ann", "s1")
	r.awaitState(wire.StateReady)
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
	for _, s := range r.all {
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
	_, err := c.CallTool(context.Background(), oauthfixture.ToolEcho, json.RawMessage(`{"text":"x"}`), nil)
	if err == nil {
		t.Fatal("the call succeeded without a valid token")
	}
	waiting := r.await("authenticating again", func(s wire.Server) bool {
		return s.State == wire.StateAuthenticating && s.Auth != nil && !s.Auth.Authorized
	})
	if !strings.Contains(waiting.Auth.Error, "could not be renewed") || !strings.Contains(waiting.Auth.Error, "invalid_grant") {
		t.Errorf("auth error %q, want the failed renewal", waiting.Auth.Error)
	}
	if _, ok := w.token("ann", "s1"); ok {
		t.Error("the dead token is still stored")
	}
	w.complete("ann", "s1")
	r.awaitState(wire.StateReady)
	echo(t, c, "back")
}

func TestExpiredTokenWithoutRefreshTokenNeedsAuthorization(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ScopesSupported: []string{"mcp:read", oauthfixture.ScopeOfflineAccess}},
		oauthfixture.ResourceConfig{Scopes: []string{"mcp:read"}})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.awaitState(wire.StateAuthenticating)
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
	r.awaitState(wire.StateReady)
	if tok, _ := w.token("ann", "s1"); tok.RefreshToken != "" {
		t.Fatal("a refresh token was issued without offline_access")
	}
	w.clock.advance(2 * oauthfixture.DefaultTokenLifetime)
	if _, err := c.CallTool(ctx, oauthfixture.ToolEcho, json.RawMessage(`{"text":"x"}`), nil); err == nil {
		t.Fatal("a call went through with an expired token")
	}
	waiting := r.await("authenticating", func(s wire.Server) bool { return s.State == wire.StateAuthenticating })
	if waiting.Auth == nil || waiting.Auth.Authorized || !strings.Contains(waiting.Auth.Error, "expired") {
		t.Errorf("auth %+v, want the expiry", waiting.Auth)
	}
}
