package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
)

// postStatus is the status of an initialize POSTed to path with bearer.
func (r *relay) postStatus(t *testing.T, path, bearer string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, r.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A server's endpoint ends with its server: removing the server closes the
// sessions open there, and a new request gets 404.
func TestServerEndpointSessionsEndWhenTheServerIsRemoved(t *testing.T) {
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.ServerPath+id, eras[0])
	a.call(t, "echo", map[string]any{"a": 1})
	ended := make(chan error, 1)
	go func() { ended <- a.cs.Wait() }()

	if err := r.m.Session("alice").RemoveServer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(waitFor):
		t.Fatal("a session of a removed server's endpoint is still open")
	}
	if got := r.postStatus(t, gateway.ServerPath+id, "k1"); got != http.StatusNotFound {
		t.Errorf("a new session on a removed server's endpoint: %d, want 404", got)
	}
}

// A server that leaves a key's scope ends the key's sessions on its
// endpoint: they do not come back when the scope widens again.
func TestServerEndpointSessionsEndWhenTheKeyLosesTheServer(t *testing.T) {
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Servers: []string{id}})
	a := r.connect("k1", gateway.ServerPath+id, eras[0])
	b := r.connect("k1", gateway.ServerPath+id, eras[0])
	a.call(t, "echo", map[string]any{"a": 1})

	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Servers: []string{}})
	if got := r.postStatus(t, gateway.ServerPath+id, "k1"); got != http.StatusNotFound {
		t.Fatalf("a server outside the key's scope: %d, want 404", got)
	}
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Servers: []string{id}})
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := b.cs.Ping(ctx, nil); err == nil {
		t.Error("a session opened before the key lost the server still answers")
	}
	if _, err := r.dial("k1", gateway.ServerPath+id, eras[0]); err != nil {
		t.Errorf("a new session once the scope is back: %v", err)
	}
}
