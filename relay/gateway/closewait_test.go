package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
)

// The relay stopping does not wait for an agent's call that the server
// has not answered: the call is cancelled.
func TestCloseDoesNotWaitForAnAgentsCall(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	go a.cs.CallTool(ctx, &mcp.CallToolParams{Name: id + "__slow", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "p"}})
	select {
	case <-a.progress:
	case <-time.After(waitFor):
		t.Fatal("the slow call did not start")
	}
	closed := make(chan struct{})
	go func() {
		r.g.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("closing the gateway waits for an agent's call in flight")
	}
}
