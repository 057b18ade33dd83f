package gateway_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

const (
	rawInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawPing        = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
)

// rawPost posts body to path with bearer, in session id (none if empty),
// and returns the status, the session id answered and the body.
func (r *relay) rawPost(t *testing.T, path, bearer, id, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// rawSession opens a session on path with bearer and returns its id.
func (r *relay) rawSession(t *testing.T, path, bearer string) string {
	t.Helper()
	status, id, body := r.rawPost(t, path, bearer, "", rawInitialize)
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize on %s: %d %q", path, status, body)
	}
	if status, _, body := r.rawPost(t, path, bearer, id, rawInitialized); status != http.StatusAccepted {
		t.Fatalf("initialized on %s: %d %q", path, status, body)
	}
	return id
}

// rawStream opens session id's stream on path and returns what closes it.
func (r *relay) rawStream(t *testing.T, path, bearer, id string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("open the stream of %s: %v %v", id, resp, err)
	}
	t.Cleanup(cancel)
	return func() {
		cancel()
		resp.Body.Close()
	}
}

// A key at its session cap that opens another session closes its least
// recently used idle one, on whichever of its endpoints it is; a request
// that opens no session closes nothing.
func TestSessionCapClosesTheKeysIdlestSession(t *testing.T) {
	r := newRelayWith(t, session.Config{}, gateway.Config{MaxSessions: 2})
	id := r.add("alice", "notes", startUpstream(t).url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	one := gateway.ServerPath + id
	s1 := r.rawSession(t, gateway.Path, "k1")
	s2 := r.rawSession(t, one, "k1")

	if status, _, _ := r.rawPost(t, gateway.Path, "k1", "", rawPing); status == http.StatusTooManyRequests {
		t.Errorf("a request that opens no session was refused at the cap")
	}
	if status, _, body := r.rawPost(t, gateway.Path, "k1", s1, rawPing); status != http.StatusOK {
		t.Fatalf("a request that opens no session closed a session: %d %q", status, body)
	}
	r.rawPost(t, one, "k1", s2, rawPing) // s1 is now the idlest

	s3 := r.rawSession(t, gateway.Path, "k1")
	if status, _, _ := r.rawPost(t, gateway.Path, "k1", s1, rawPing); status != http.StatusNotFound {
		t.Errorf("the idlest session past the cap answered %d, want 404 (closed)", status)
	}
	for path, sid := range map[string]string{one: s2, gateway.Path: s3} {
		if status, _, body := r.rawPost(t, path, "k1", sid, rawPing); status != http.StatusOK {
			t.Errorf("session %s on %s: %d %q", sid, path, status, body)
		}
	}
	r.keys.put("k2", agentkeys.Grant{User: "alice", Agent: "Other", KeyID: "key2"})
	r.rawSession(t, gateway.Path, "k2")
	if status, _, _ := r.rawPost(t, gateway.Path, "k1", s3, rawPing); status != http.StatusOK {
		t.Errorf("another key's session closed one of key1's: %d", status)
	}
}

// A key at its cap whose sessions all have a stream open is refused a new
// session with 429 and a message that says what to do.
func TestSessionCapRefusesWhenEverySessionIsBusy(t *testing.T) {
	r := newRelayWith(t, session.Config{}, gateway.Config{MaxSessions: 2})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	for range 2 {
		r.rawStream(t, gateway.Path, "k1", r.rawSession(t, gateway.Path, "k1"))
	}
	status, _, body := r.rawPost(t, gateway.Path, "k1", "", rawInitialize)
	if status != http.StatusTooManyRequests || !strings.Contains(body, "DELETE") {
		t.Errorf("a third session of a key whose two are busy: %d %q, want 429 saying to end one", status, body)
	}
}
