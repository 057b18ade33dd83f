package oauth_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

var readScope = oauthfixture.ResourceConfig{Scopes: []string{"mcp:read"}}

func echo(t *testing.T, c interface {
	CallTool(context.Context, *mcp.CallToolParams, func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
}, text string) {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: oauthfixture.ToolEcho, Arguments: json.RawMessage(`{"text":"` + text + `"}`)}, nil)
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != text {
		t.Fatalf("echo result %+v", res)
	}
}

func TestServerAnswering401IsAuthorizedThroughTheCallbackAndBecomesReady(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")

	waiting := r.AwaitState(wire.StateAuthenticating)
	if waiting.Auth == nil || !waiting.Auth.Required || waiting.Auth.Authorized {
		t.Fatalf("auth state %+v, want required", waiting.Auth)
	}
	if waiting.Auth.Issuer != w.as.Issuer() || !slices.Equal(waiting.Auth.Scopes, []string{"mcp:read"}) {
		t.Errorf("auth state %+v, want issuer %s and the challenge's scope", waiting.Auth, w.as.Issuer())
	}
	if w.as.Stats().Registrations != 0 {
		t.Error("the relay registered before anyone asked to authorize")
	}

	authURL, callback := w.authorize("ann", "s1")
	q := mustQuery(t, authURL)
	for k, want := range map[string]string{
		"response_type":         "code",
		"code_challenge_method": "S256",
		"resource":              w.rs.URL(),
		"scope":                 "mcp:read offline_access",
		"redirect_uri":          testCallback,
	} {
		if got := q.Get(k); got != want {
			t.Errorf("authorization URL %s = %q, want %q", k, got, want)
		}
	}
	if q.Get("state") == "" || len(q.Get("code_challenge")) != 43 || q.Get("client_id") == "" {
		t.Errorf("authorization URL lacks state, challenge or client: %s", authURL)
	}
	if reqs := w.as.AuthRequests(); len(reqs) != 1 || reqs[0].Query.Get("resource") != w.rs.URL() {
		t.Errorf("the authorization server got %+v", reqs)
	}
	if err := w.mgr.Callback(context.Background(), callback); err != nil {
		t.Fatalf("Callback: %v", err)
	}

	ready := r.AwaitState(wire.StateReady)
	if ready.Auth == nil || !ready.Auth.Authorized || ready.Auth.Required || ready.Auth.ClientID == "" {
		t.Errorf("auth state when ready %+v", ready.Auth)
	}
	if len(ready.Lists.Tools) != 2 {
		t.Errorf("tools %+v", ready.Lists.Tools)
	}
	echo(t, c, "hello")
	if st := w.as.Stats(); st.Registrations != 1 || st.Codes != 1 {
		t.Errorf("authorization server stats %+v, want one registration and one code", st)
	}
	for _, tr := range w.as.TokenRequests() {
		if tr.Resource != w.rs.URL() {
			t.Errorf("token request %+v without the resource", tr)
		}
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func TestOfflineAccessIsAskedOnlyWhenListed(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{ScopesSupported: []string{"mcp:read"}}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	authURL, _ := w.authorize("ann", "s1")
	if got := mustQuery(t, authURL).Get("scope"); got != "mcp:read" {
		t.Errorf("scope %q, want mcp:read without offline_access", got)
	}
}

func TestScopesComeFromTheChallengeElseScopesSupportedElseNone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rs    oauthfixture.ResourceConfig
		scope string
	}{
		{"challenge", oauthfixture.ResourceConfig{Scopes: []string{"mcp:read"}, ScopesSupported: []string{"mcp:read", "mcp:write"}}, "mcp:read"},
		{"scopes_supported", oauthfixture.ResourceConfig{NoChallengeScope: true, ScopesSupported: []string{"mcp:read", "mcp:write"}}, "mcp:read mcp:write"},
		{"none", oauthfixture.ResourceConfig{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, oauthfixture.AuthConfig{ScopesSupported: []string{"mcp:read", "mcp:write"}}, tc.rs)
			_, r := w.connect("ann", "s1", w.rs.URL(), "")
			r.AwaitState(wire.StateAuthenticating)
			authURL, _ := w.authorize("ann", "s1")
			q := mustQuery(t, authURL)
			if got := q.Get("scope"); got != tc.scope || (tc.scope == "" && q.Has("scope")) {
				t.Errorf("scope %q (present %v), want %q", got, q.Has("scope"), tc.scope)
			}
		})
	}
}

func TestSSEServerIsAuthorizedToo(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := w.connect("ann", "s1", w.rs.SSEURL(), wire.TransportSSE)
	r.AwaitState(wire.StateAuthenticating) // on the SSE path: see the requests below
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	echo(t, c, "over sse")
	var posts int
	for _, req := range w.rs.Requests() {
		if req.Path == oauthfixture.SSEPath && req.Status == 0 {
			if req.Token == "" {
				t.Errorf("an SSE request passed without a token: %+v", req)
			}
			if req.Method == "POST" {
				posts++
			}
		}
	}
	if posts == 0 {
		t.Error("no authorized SSE POST reached the server")
	}
}

func TestTokenAndRegistrationAreReusedAfterARestart(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	c.Close()

	w.restart()
	c, r = w.connect("ann", "s1", w.rs.URL(), "")
	ready := r.AwaitState(wire.StateReady)
	if ready.Auth == nil || !ready.Auth.Authorized {
		t.Errorf("auth after restart %+v", ready.Auth)
	}
	echo(t, c, "still here")
	if st := w.as.Stats(); st.Authorizations != 1 || st.Registrations != 1 {
		t.Errorf("stats after restart %+v, want the first authorization and registration only", st)
	}

	// Lose the tokens at the authorization server: the next authorization
	// reuses the stored registration.
	w.as.RevokeAccessTokens()
	w.as.RevokeRefreshTokens()
	c.Retry()
	r.AwaitState(wire.StateAuthenticating)
	w.complete("ann", "s1")
	r.AwaitState(wire.StateReady)
	if st := w.as.Stats(); st.Authorizations != 2 || st.Registrations != 1 {
		t.Errorf("stats %+v, want a second authorization and still one registration", st)
	}
}

func TestRegistrationIsReusedAcrossAuthorizations(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	first, _ := w.authorize("ann", "s1")
	second := w.complete("ann", "s1")
	third := w.complete("ann", "s1")
	ids := []string{mustQuery(t, first).Get("client_id"), mustQuery(t, second).Get("client_id"), mustQuery(t, third).Get("client_id")}
	if ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("client ids %v differ", ids)
	}
	if n := w.as.Stats().Registrations; n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
	// A registration the authorization server lost (invalid_client at the
	// token endpoint) is dropped, and the next authorization registers anew.
	_, callback := w.authorize("ann", "s1")
	w.as.ForgetClients()
	if err := w.mgr.Callback(context.Background(), callback); err == nil {
		t.Fatal("the callback succeeded for a forgotten client")
	}
	fresh := w.complete("ann", "s1")
	if id := mustQuery(t, fresh).Get("client_id"); id == ids[0] {
		t.Errorf("the forgotten client id %s was used again", id)
	}
	if n := w.as.Stats().Registrations; n != 2 {
		t.Errorf("%d registrations, want 2", n)
	}
}
