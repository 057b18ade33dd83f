package service

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestClientAddsTheRelayByURLAndCallsTools(t *testing.T) {
	r := newOAuthRelay(t)
	cs, h, err := r.connect("/mcp", approve)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if info := cs.InitializeResult().ServerInfo; info.Name != "switchboard" || info.Version != buildinfo.Version() || info.Version == "" {
		t.Errorf("serverInfo %+v, want switchboard at this build's version", info)
	}
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	echo := r.demo + "__echo"
	found := false
	for _, tl := range tools.Tools {
		found = found || tl.Name == echo
	}
	if !found {
		t.Fatalf("tools %v lack %s", tools.Tools, echo)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: echo, Arguments: map[string]any{"text": "through oauth"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.Content); !strings.Contains(string(b), "through oauth") {
		t.Errorf("echo answered %s", b)
	}
	grants, err := r.svc.agents.auth.ListGrants(ctx, DefaultLocalUser)
	if err != nil || len(grants) != 1 || grants[0].ClientName != "Test Agent" || !grants[0].AllServers {
		t.Fatalf("grants %+v (%v), want the one just given", grants, err)
	}
	if grants[0].Endpoint != r.srv.URL+"/mcp" {
		t.Errorf("grant bound to %q, want %q", grants[0].Endpoint, r.srv.URL+"/mcp")
	}
	ts, _ := h.TokenSource(ctx)
	tok, err := ts.Token()
	if err != nil || !strings.HasPrefix(tok.AccessToken, "sba_") || tok.RefreshToken == "" {
		t.Fatalf("token %+v (%v)", tok, err)
	}
}

func TestDeniedConsentIsRefused(t *testing.T) {
	r := newOAuthRelay(t)
	_, _, err := r.connect("/mcp", deny)
	if err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("connect after a denial: %v, want access_denied", err)
	}
	if grants, _ := r.svc.agents.auth.ListGrants(context.Background(), DefaultLocalUser); len(grants) != 0 {
		t.Errorf("a denial left grants %+v", grants)
	}
}

func TestUnauthenticatedRequestNamesTheResourceMetadata(t *testing.T) {
	r := newOAuthRelay(t)
	for _, path := range []string{"/mcp", "/mcp/s/" + r.demo} {
		code, h := r.status(path, "")
		want := `Bearer resource_metadata="` + r.srv.URL + agentauth.ResourceMetaPath + path + `"`
		if code != http.StatusUnauthorized || h.Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q, want 401 %q", path, code, h.Get("WWW-Authenticate"), want)
		}
		prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), r.srv.URL+agentauth.ResourceMetaPath+path, r.srv.URL+path, http.DefaultClient)
		if err != nil || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != r.srv.URL {
			t.Errorf("%s metadata: %+v %v", path, prm, err)
		}
	}
	// A key that is wrong, revoked or expired is told so (RFC 6750 section
	// 3.1), with the metadata still named; /mcp/code is a resource too.
	for _, path := range []string{"/mcp", "/mcp/code"} {
		code, h := r.status(path, "sbk_wrong")
		want := `Bearer resource_metadata="` + r.srv.URL + agentauth.ResourceMetaPath + path + `", error="invalid_token", error_description="unknown, revoked or expired agent key or access token"`
		if code != http.StatusUnauthorized || h.Get("WWW-Authenticate") != want {
			t.Errorf("%s with a wrong key: %d %q, want 401 %q", path, code, h.Get("WWW-Authenticate"), want)
		}
	}
	if _, err := oauthex.GetProtectedResourceMetadata(context.Background(), r.srv.URL+agentauth.ResourceMetaPath+"/mcp/code", r.srv.URL+"/mcp/code", http.DefaultClient); err != nil {
		t.Errorf("/mcp/code's metadata: %v", err)
	}
	asm, err := auth.GetAuthServerMetadata(context.Background(), r.srv.URL, http.DefaultClient)
	if err != nil || asm == nil || asm.TokenEndpoint != r.srv.URL+agentauth.TokenPath || !asm.ClientIDMetadataDocumentSupported {
		t.Errorf("authorization server metadata: %+v %v", asm, err)
	}
}

func TestWrongResourceIsRefused(t *testing.T) {
	r := newOAuthRelay(t)
	const redirect = "http://127.0.0.1:9999/cb"
	client := r.register(redirect)
	_, challenge := pkce()
	q, err := r.authorize(r.authURL(client, redirect, "https://elsewhere.example/mcp", challenge), approve)
	if err != nil || q.Get("error") != "invalid_target" || q.Get("state") != "s1" {
		t.Errorf("authorize for another resource: %v %v, want invalid_target", q, err)
	}
	// A token bound to one server's endpoint does not open the aggregate one.
	_, tok := r.grantTokens(r.srv.URL + "/mcp/s/" + r.demo)
	access, _ := tok["access_token"].(string)
	if code, _ := r.status("/mcp/s/"+r.demo, access); code != http.StatusOK {
		t.Errorf("the token on its own endpoint: %d, want 200", code)
	}
	if code, h := r.status("/mcp", access); code != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), "resource_metadata") ||
		!strings.Contains(h.Get("WWW-Authenticate"), `error_description="the access token is for another endpoint of this relay"`) {
		t.Errorf("the token on another endpoint: %d %q, want 401 with a challenge", code, h.Get("WWW-Authenticate"))
	}
}

func TestReusedRefreshTokenRevokesTheGrant(t *testing.T) {
	r := newOAuthRelay(t)
	client, tok := r.grantTokens(r.srv.URL + "/mcp")
	refresh := func(rt string) (int, map[string]any) {
		return r.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {client}})
	}
	first, _ := tok["refresh_token"].(string)
	code, next := refresh(first)
	if code != http.StatusOK || next["refresh_token"] == first {
		t.Fatalf("first refresh: %d %v", code, next)
	}
	access, _ := next["access_token"].(string)
	if code, _ := r.status("/mcp", access); code != http.StatusOK {
		t.Fatalf("the rotated access token: %d", code)
	}
	code, again := refresh(first)
	if code != http.StatusBadRequest || again["error"] != "invalid_grant" {
		t.Errorf("the spent refresh token again: %d %v, want invalid_grant", code, again)
	}
	if code, _ := r.status("/mcp", access); code != http.StatusUnauthorized {
		t.Errorf("after reuse the grant's access token: %d, want 401", code)
	}
	second, _ := next["refresh_token"].(string)
	if code, out := refresh(second); code != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("after reuse the grant's newer refresh token: %d %v, want invalid_grant", code, out)
	}
}

func TestRevokedGrantIsRefused(t *testing.T) {
	r := newOAuthRelay(t)
	client, tok := r.grantTokens(r.srv.URL + "/mcp")
	access, _ := tok["access_token"].(string)
	rt, _ := tok["refresh_token"].(string)
	ctx := context.Background()
	grants, _ := r.svc.agents.auth.ListGrants(ctx, DefaultLocalUser)
	if len(grants) != 1 {
		t.Fatalf("grants %+v", grants)
	}
	if err := r.svc.agents.auth.RevokeGrant(ctx, DefaultLocalUser, grants[0].ID); err != nil {
		t.Fatal(err)
	}
	if code, _ := r.status("/mcp", access); code != http.StatusUnauthorized {
		t.Errorf("access token of a revoked grant: %d, want 401", code)
	}
	code, out := r.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {client}})
	if code != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("refresh token of a revoked grant: %d %v, want invalid_grant", code, out)
	}
	// RFC 7009 revocation by the client itself.
	client2, tok2 := r.grantTokens(r.srv.URL + "/mcp")
	rt2, _ := tok2["refresh_token"].(string)
	resp, err := http.PostForm(r.srv.URL+agentauth.RevokePath, url.Values{"token": {rt2}, "client_id": {client2}})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %v %v", resp, err)
	}
	resp.Body.Close()
	access2, _ := tok2["access_token"].(string)
	if code, _ := r.status("/mcp", access2); code != http.StatusUnauthorized {
		t.Errorf("access token after the client revoked its refresh token: %d, want 401", code)
	}
}

func TestUnregisteredRedirectIsRefusedWithoutRedirecting(t *testing.T) {
	r := newOAuthRelay(t)
	client := r.register("https://app.example/cb")
	_, challenge := pkce()
	for _, redirect := range []string{"https://evil.example/cb", "https://app.example/cb/other", "http://127.0.0.1:1234/cb"} {
		resp, err := noRedirects.Get(r.authURL(client, redirect, r.srv.URL+"/mcp", challenge))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
			t.Errorf("redirect %s: %d to %q, want 400 and no redirect", redirect, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// A loopback redirect matches on any port (RFC 8252).
	loop := r.register("http://127.0.0.1:9999/cb")
	resp, err := noRedirects.Get(r.authURL(loop, "http://127.0.0.1:4242/cb", r.srv.URL+"/mcp", challenge))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), agentauth.ConsentPath) {
		t.Errorf("loopback redirect on another port: %d %q, want the consent page", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// The requests of the conformance suite's dns-rebinding-protection server
// scenario (run by e2e/conformance/run-server.sh with an agent key), made
// with an OAuth access token: a foreign Host and Origin are refused with a
// 4xx, the relay's own are served.
func TestDNSRebindingIsRefusedWithAnOAuthToken(t *testing.T) {
	r := newOAuthRelay(t)
	for _, path := range []string{"/mcp", "/mcp/s/" + r.demo} {
		_, tok := r.grantTokens(r.srv.URL + path)
		access, _ := tok["access_token"].(string)
		for _, host := range []string{"evil.example.com", strings.TrimPrefix(r.srv.URL, "http://")} {
			req, _ := http.NewRequest(http.MethodPost, r.srv.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"conformance-dns-rebinding-test","version":"1.0.0"}}}`))
			req.Host = host
			req.Header.Set("Origin", "http://"+host)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+access)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			foreign := host == "evil.example.com"
			if foreign && (resp.StatusCode < 400 || resp.StatusCode >= 500) || !foreign && resp.StatusCode != http.StatusOK {
				t.Errorf("%s with Host and Origin %s: %d", path, host, resp.StatusCode)
			}
		}
	}
}

func TestNarrowedConsentBindsTheGrantToTheChosenServers(t *testing.T) {
	r := newOAuthRelay(t)
	const redirect = "http://127.0.0.1:9999/cb"
	client := r.register(redirect)
	verifier, challenge := pkce()
	authURL := r.authURL(client, redirect, r.srv.URL+"/mcp", challenge) + "&scope=" + url.QueryEscape(agentauth.ScopeServerPrefix+r.demo+" "+agentauth.ScopeServerPrefix+"nosuchserver")
	q, err := r.authorize(authURL, func(request string, card wire.AgentConsent) wire.AnswerAgentConsentArgs {
		if card.AllServers || len(card.Servers) != 2 {
			t.Errorf("the card asks for %+v, want the two listed servers", card)
		}
		return wire.AnswerAgentConsentArgs{Request: request, Approve: true, Servers: []string{r.demo}}
	})
	if err != nil || q.Get("code") == "" {
		t.Fatalf("authorize: %v %v", q, err)
	}
	status, tok := r.token(url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "client_id": {client},
		"redirect_uri": {redirect}, "code_verifier": {verifier}})
	if status != http.StatusOK || tok["scope"] != agentauth.ScopeServerPrefix+r.demo {
		t.Fatalf("token: %d %v, want the scope of the one server approved", status, tok)
	}
	grants, _ := r.svc.agents.auth.ListGrants(context.Background(), DefaultLocalUser)
	if len(grants) != 1 || grants[0].AllServers || len(grants[0].Servers) != 1 || grants[0].Servers[0] != r.demo {
		t.Errorf("grants %+v, want one for the demo server only", grants)
	}
	// A server that was not asked for cannot be approved.
	_, challenge = pkce()
	_, err = r.authorize(r.authURL(client, redirect, r.srv.URL+"/mcp", challenge)+"&scope="+url.QueryEscape(agentauth.ScopeServerPrefix+"other"),
		func(request string, _ wire.AgentConsent) wire.AnswerAgentConsentArgs {
			return wire.AnswerAgentConsentArgs{Request: request, Approve: true, Servers: []string{r.demo}}
		})
	if err == nil {
		t.Error("approving a server the client did not ask for was accepted")
	}
}
