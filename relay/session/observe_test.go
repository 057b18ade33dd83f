package session

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCallRoutes(t *testing.T) {
	for _, c := range []struct {
		caller Caller
		want   string
	}{
		{Caller{}, metrics.RouteDashboard},
		{Caller{App: "ui://view"}, metrics.RouteDashboard},
		{Caller{Agent: &Agent{Name: "agent"}}, metrics.RouteAgent},
		{Caller{Agent: &Agent{Name: "Chat: plans", Chat: "chat-1"}}, metrics.RouteChat},
	} {
		if got := c.caller.route(); got != c.want {
			t.Errorf("route of %+v: %q, want %q", c.caller, got, c.want)
		}
	}
}

// BenchmarkObserveCall is what metrics and tracing (off, as by default)
// add to one call on the one call path.
func BenchmarkObserveCall(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		_, end := observeCall(ctx, Caller{}, wire.CallKindTool)
		end(false, nil)
	}
}
