package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/agentauth"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// callbackServer is an MCP client's loopback redirect URI: it hands each
// authorization response it receives to the test.
func callbackServer(t *testing.T) (string, <-chan url.Values) {
	t.Helper()
	got := make(chan url.Values, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Done</title><p id="client-done">You can close this window.</p>`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/callback", got
}

// A person adds the relay to an MCP client by its URL alone: the client
// (the go-sdk with its own OAuth handler) discovers the relay's
// authorization server, registers, and opens the authorization page; the
// person, asked to sign in first, sees the consent card in the dashboard
// and approves; the client lists and calls tools. The grant shows beside
// the keys and, revoked there, stops working.
func TestClientAddsRelayByURLWithConsentInTheDashboard(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	admin := openTab(t)
	admin.login(r)
	admin.addServer(fixtureName, fx.URL())
	admin.waitServer(fixtureName, wire.StateReady)
	id := admin.serverID(fixtureName)

	redirect, callback := callbackServer(t)
	p := openTab(t) // the browser the client opens: not signed in yet
	h := consentingOAuthHandler(t, r, p, redirect, callback)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "desk-assistant", Version: "1"}, nil)
	connectCtx, cancel := context.WithTimeout(ctx, consentTimeout)
	defer cancel()
	cs, err := client.Connect(connectCtx, &mcp.StreamableClientTransport{Endpoint: r.URL() + gateway.Path, OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("the client adds the relay by its URL: %v", err)
	}
	defer cs.Close()
	clientListsAndCallsTool(t, ctx, cs, gateway.ToolName(id, fixture.ToolGreet))

	// The grant is listed beside the keys; revoked there, its token stops working.
	revokeGrantInTheDashboard(t, admin)
	checkTokenRefused(t, ctx, r, h)
}

// consentTimeout bounds a client's connect through consentingOAuthHandler:
// the person's sign-in and consent take five page waits, each bounded by
// waitTimeout, which a loaded machine may need much of (a sign-in loads the
// dashboard twice); this only stops a client that hangs.
const consentTimeout = 6 * waitTimeout

// consentingOAuthHandler is the OAuth handler of the MCP client "Desk
// Assistant", whose redirect URI is redirect: it opens the authorization
// page in p, where the person signs in to r and approves the consent card,
// and it takes the code from callback. It asks for consent once.
func consentingOAuthHandler(t *testing.T, r *relay, p *tab, redirect string, callback <-chan url.Values) *auth.AuthorizationCodeHandler {
	t.Helper()
	consents := 0
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Desk Assistant", RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		RequestRefreshToken: true,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if consents++; consents > 1 {
				return nil, errors.New("asked for consent twice")
			}
			p.navigate(args.URL)
			p.waitPresent("#consent-signin")
			consentURL := eval[string](p, `location.href`)
			if !strings.Contains(consentURL, agentauth.ConsentPath+"?") {
				t.Errorf("the authorization page went to %s, not the consent page", consentURL)
			}
			p.login(r)
			p.navigate(consentURL)
			p.waitPresent("#consent-card")
			if host, name := p.text("#consent-host"), p.text("#consent-name"); host != "127.0.0.1" || name != "Desk Assistant" {
				t.Errorf("the card shows host %q and name %q", host, name)
			}
			if got := p.text("#consent-redirect"); got != "127.0.0.1" {
				t.Errorf("the card shows redirect host %q", got)
			}
			p.screenshot("consent-card")
			p.click("#consent-approve")
			select {
			case q := <-callback:
				return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
			case <-time.After(waitTimeout):
				return nil, errors.New("the client's redirect URI was never called")
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// clientListsAndCallsTool has the client list the relay's tools, among them
// greet, and call it.
func clientListsAndCallsTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, greet string) {
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, tl := range tools.Tools {
		listed = listed || tl.Name == greet
	}
	if !listed {
		t.Fatalf("the client's tools lack %s", greet)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: greet, Arguments: map[string]any{"name": "Bo"}})
	if err != nil || res.IsError {
		t.Fatalf("call %s: %v %+v", greet, err, res)
	}
	if b, _ := json.Marshal(res.Content); !strings.Contains(string(b), fixture.Greeting("Bo")) {
		t.Errorf("the call answered %s", b)
	}
}

// revokeGrantInTheDashboard finds the client's grant beside the keys in the
// Agents view of admin and revokes it.
func revokeGrantInTheDashboard(t *testing.T, admin *tab) {
	admin.click(`#pages a[href="/agents"]`)
	admin.waitPresent(".sb-grant[data-state=active]")
	if name := admin.text(".sb-grant .sb-key-name"); name != "Desk Assistant" {
		t.Errorf("the grant is listed as %q", name)
	}
	admin.click(".sb-grant-revoke")
	admin.click(".sb-grant-revoke-confirm")
	admin.waitPresent(".sb-grant[data-state=revoked]")
}

// checkTokenRefused checks that the relay refuses the access token h holds.
func checkTokenRefused(t *testing.T, ctx context.Context, r *relay, h *auth.AuthorizationCodeHandler) {
	ts, _ := h.TokenSource(ctx)
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, r.URL()+gateway.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked grant's token: %d, want 401", resp.StatusCode)
	}
}
