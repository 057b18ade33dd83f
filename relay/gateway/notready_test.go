package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A tool of a server the relay is reconnecting is not listed meanwhile; an
// agent that calls it anyway is told the server is not ready, not that the
// tool is unknown, on both endpoints and both eras. A name of no server in
// scope stays unknown.
func TestACallToAServerReconnectingSaysSo(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			fx := fixture.NewLoopback(func() *mcp.Server {
				srv := mcp.NewServer(&mcp.Implementation{Name: "flaky", Version: "1"}, nil)
				srv.AddTool(echoTool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echoed"}}}, nil
				})
				return srv
			})
			fixture.Serve(t, fx)
			id := r.add("alice", "flaky", fx.URL())
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
			all := r.connect("k1", gateway.Path, era)
			one := r.connect("k1", gateway.ServerPath+id, era)

			fx.Stop()
			r.waitState("alice", id, func(s wire.ServerState) bool { return s != wire.StateReady })
			for _, a := range []*agent{all, one} { // its tools leave the lists
				for len(a.toolNames(t)) != 0 {
					select {
					case <-a.changed:
					case <-time.After(waitFor):
						t.Fatal("the tools of the server that went stay listed")
					}
				}
			}
			for _, c := range []struct {
				a    *agent
				name string
			}{{all, id + "__echo"}, {one, "echo"}} {
				out, isErr := c.a.call(t, c.name, map[string]any{"a": 1})
				if !isErr || !strings.Contains(out, "the server flaky ") || !strings.Contains(out, "reconnected") {
					t.Errorf("%s while the server is down: %q (isError %v)", c.name, out, isErr)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if _, err := all.cs.CallTool(ctx, &mcp.CallToolParams{Name: "nosuch__echo", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("a tool of no server: %v, want unknown tool", err)
			}
		})
	}
}
