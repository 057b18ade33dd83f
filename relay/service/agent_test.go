package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestServiceMountsTheAgentEndpointBehindTheHostCheck(t *testing.T) {
	svc, err := New(context.Background(), Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	_, good, err := svc.store.CreateAgentKey(context.Background(), store.NewAgentKey{User: DefaultLocalUser, Name: "test", AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	ping := func(url, key string) int {
		req := httptest.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		svc.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	for _, c := range []struct {
		url, key string
		want     int
	}{
		{"http://127.0.0.1:8080" + gateway.Path, good, http.StatusOK},
		{"http://127.0.0.1:8080" + gateway.Path, "", http.StatusUnauthorized},
		{"http://127.0.0.1:8080" + gateway.Path, good + "x", http.StatusUnauthorized},
		{"http://evil.example" + gateway.Path, good, http.StatusMisdirectedRequest},
		{"http://127.0.0.1:8080" + gateway.ServerPath + "nosuchserver", good, http.StatusNotFound},
	} {
		if got := ping(c.url, c.key); got != c.want {
			t.Errorf("POST %s with key %q: %d, want %d", c.url, c.key, got, c.want)
		}
	}
}

// The dashboard's session (its cookie, or its token as a bearer) never
// opens the agent endpoint or the tool API, so a page that makes the
// browser send the cookie gets nothing; and an agent key opens no
// dashboard route.
func TestDashboardSessionAndAgentKeyDoNotOpenEachOther(t *testing.T) {
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	session, err := svc.Mint(DefaultLocalUser, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := svc.store.CreateAgentKey(context.Background(), store.NewAgentKey{User: DefaultLocalUser, Name: "test", AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string, auth func(*http.Request)) int {
		req := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		auth(req)
		rec := httptest.NewRecorder()
		svc.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	cookie := func(r *http.Request) { r.AddCookie(&http.Cookie{Name: authn.CookieName, Value: session}) }
	bearer := func(tok string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for name, code := range map[string]int{
		"/mcp with the session cookie":            do(http.MethodPost, gateway.Path, initialize, cookie),
		"/mcp with the session token":             do(http.MethodPost, gateway.Path, initialize, bearer(session)),
		"/api/tools with the session cookie":      do(http.MethodGet, gateway.ToolsPath, "", cookie),
		"/api/tools/call with the session cookie": do(http.MethodPost, gateway.ToolCallPath, `{"name":"x"}`, cookie),
		"/api/tools with the session token":       do(http.MethodGet, gateway.ToolsPath, "", bearer(session)),
	} {
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	if code := do(http.MethodGet, oauth.StartPath+"?state=forged", "", bearer(key)); code != http.StatusUnauthorized {
		t.Errorf("the start page with an agent key: %d, want 401", code)
	}
	if code := do(http.MethodGet, gateway.ToolsPath, "", bearer(key)); code != http.StatusOK {
		t.Errorf("the agent key itself on /api/tools: %d, want 200", code)
	}
}
