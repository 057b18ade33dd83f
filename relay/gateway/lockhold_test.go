package gateway_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
)

// A view that stops hearing a server's logs tells the server the agent's
// level is gone; a server slow to answer that must not hold up the user's
// session (which tells the view of every change under its lock).
func TestSlowLevelReleaseDoesNotStallTheSession(t *testing.T) {
	r := newRelay(t, broker.Config{})
	up := startUpstream(t)
	var (
		mu      sync.Mutex
		block   bool
		seen    = make(chan struct{}, 1)
		release = make(chan struct{})
	)
	up.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			held := block && method == "logging/setLevel"
			mu.Unlock()
			if held {
				select {
				case seen <- struct{}{}:
				default:
				}
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return next(ctx, method, req)
		}
	})
	t.Cleanup(func() { close(release) })
	id := r.add("alice", "notes", up.url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.Path, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := a.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	block = true
	mu.Unlock()
	// The key loses the server: the view stops hearing it and releases the
	// agent's level, which the server does not answer.
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1", Servers: []string{"other"}})
	go a.cs.Ping(ctx, nil)
	select {
	case <-seen:
	case <-time.After(waitFor):
		t.Fatalf("the server of %s was not told the agent's level is gone", id)
	}

	second := startUpstream(t).url
	added := make(chan error, 1)
	go func() {
		_, err := r.m.Session("alice").AddServer(ctx, "second", second)
		added <- err
	}()
	select {
	case err := <-added:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("adding a server waited on a server's answer to a level change")
	}
}
