package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// apiResult is the status and error of a tool API call.
type apiResult struct {
	status int
	err    wire.Error
}

// callSlowByAPI calls the upstream's slow tool of server id through the
// tool API with bearer, and answers on the channel when the call ends.
func (r *relay) callSlowByAPI(t *testing.T, bearer, id string) <-chan apiResult {
	t.Helper()
	out := make(chan apiResult, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, r.url+gateway.ToolCallPath, strings.NewReader(`{"name":"`+gateway.ToolName(id, "slow")+`","arguments":{}}`))
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := (&http.Client{Timeout: waitFor}).Do(req)
		if err != nil {
			out <- apiResult{err: wire.Error{Message: err.Error()}}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var body struct {
			Error wire.Error `json:"error"`
		}
		json.Unmarshal(b, &body)
		out <- apiResult{status: resp.StatusCode, err: body.Error}
	}()
	return out
}

// callSlowByMCP calls the upstream's slow tool through a's session, and
// answers on the channel when the call ends.
func callSlowByMCP(a *agent, tool string) <-chan error {
	out := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		_, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		out <- err
	}()
	return out
}

// await waits for ch, or fails with what.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitFor):
		t.Fatalf("%s within %v", what, waitFor)
	}
	var zero T
	return zero
}

// Revoking a key cancels its calls in flight on both routes: the server
// hears the cancellation, and the tool API's caller is told why.
func TestRevokingAKeyCancelsItsCallsInFlight(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	revoke := func() {
		r.keys.revoke("k1")
		(&agentkeys.Keys{Revoked: func(id string) { r.api.CloseKey(id); r.g.CloseKey(id) }}).Closed("key1")
	}

	t.Run("mcp", func(t *testing.T) {
		a := r.connect("k1", gateway.Path, eras[0])
		done := callSlowByMCP(a, id+"__slow")
		await(t, up.started, "the call did not reach the server")
		revoke()
		await(t, up.cancelled, "the server did not hear the revoked key's call cancelled")
		if err := await(t, done, "the revoked key's call did not end"); err == nil {
			t.Error("the revoked key's call succeeded")
		}
	})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	t.Run("api", func(t *testing.T) {
		done := r.callSlowByAPI(t, "k1", id)
		await(t, up.started, "the call did not reach the server")
		revoke()
		await(t, up.cancelled, "the server did not hear the revoked key's call cancelled")
		got := await(t, done, "the revoked key's call did not end")
		if got.status != http.StatusUnauthorized || !strings.Contains(got.err.Message, "revoked") {
			t.Errorf("the revoked key's call: %d %+v, want 401 saying it was revoked", got.status, got.err)
		}
	})
}

// A key that expires while its call runs: the call is cancelled at the
// expiry, on both routes.
func TestExpiryCancelsCallsInFlight(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	id := r.add("alice", "notes", up.url)
	t.Run("mcp", func(t *testing.T) {
		r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
		a := r.connect("k1", gateway.Path, eras[0])
		done := callSlowByMCP(a, id+"__slow")
		await(t, up.started, "the call did not reach the server")
		// The key gets an expiry while its call runs; the session's next
		// request brings it to the gateway.
		r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Expires: time.Now().Add(time.Second)})
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if err := a.cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
		await(t, up.cancelled, "the server did not hear the expired key's call cancelled")
		if err := await(t, done, "the expired key's call did not end"); err == nil {
			t.Error("the expired key's call succeeded")
		}
	})
	t.Run("api", func(t *testing.T) {
		r.keys.put("k2", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key2", Expires: time.Now().Add(1500 * time.Millisecond)})
		done := r.callSlowByAPI(t, "k2", id)
		await(t, up.started, "the call did not reach the server")
		await(t, up.cancelled, "the server did not hear the expired key's call cancelled")
		got := await(t, done, "the expired key's call did not end")
		if got.status != http.StatusUnauthorized || !strings.Contains(got.err.Message, "expired") {
			t.Errorf("the expired key's call: %d %+v, want 401 saying it expired", got.status, got.err)
		}
	})
}
