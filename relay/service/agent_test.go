package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/gateway"
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
