package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/web"
)

func TestEmbedPathsAgreeWithTheRelays(t *testing.T) {
	if web.OAuthHandoffPath != oauth.HandoffPath || web.OAuthStartPath != oauth.StartPath {
		t.Fatalf("the embed opens %s and %s, the relay serves %s and %s",
			web.OAuthHandoffPath, web.OAuthStartPath, oauth.HandoffPath, oauth.StartPath)
	}
}

func TestTokenStartNamesTheUserOnlyByABearerTokenFromTheRelaysOwnPages(t *testing.T) {
	const base = "http://127.0.0.1:8080"
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: base, EmbedOrigins: []string{"http://localhost:3000"}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	tok, err := svc.Mint("ann", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	post := func(origin, authorization, cookie string) int {
		r := httptest.NewRequest(http.MethodPost, base+oauth.StartPath, strings.NewReader(url.Values{"state": {"unknown"}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		if cookie != "" {
			r.Header.Set("Cookie", "switchboard_session="+cookie)
		}
		rec := httptest.NewRecorder()
		svc.Handler().ServeHTTP(rec, r)
		return rec.Code
	}
	cases := []struct {
		name                          string
		origin, authorization, cookie string
		want                          int
	}{
		{"a valid token", base, "Bearer " + tok, "", http.StatusForbidden}, // the user is known; the state is not
		{"no token", base, "", "", http.StatusUnauthorized},
		{"a session cookie only", base, "", tok, http.StatusUnauthorized},
		{"a bad token", base, "Bearer not.a.token", "", http.StatusUnauthorized},
		{"another site's page", "http://evil.example", "Bearer " + tok, "", http.StatusUnauthorized},
		{"the embedding site's page", "http://localhost:3000", "Bearer " + tok, "", http.StatusUnauthorized},
		{"no origin", "", "Bearer " + tok, "", http.StatusUnauthorized},
	}
	for _, c := range cases {
		if got := post(c.origin, c.authorization, c.cookie); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
}
