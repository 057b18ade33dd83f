package conn

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// An agent chooses the URIs it subscribes to: its holds are capped like the
// person's subscriptions, and a URI must be one line of bounded length.
func TestAgentHoldsAreCapped(t *testing.T) {
	var asked atomic.Int32
	f := newFixture(t, legacyEra, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { asked.Add(1); return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	f.server.AddResource(&mcp.Resource{URI: "test://one", Name: "one"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	c, _, _ := startReady(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	for i := range wire.MaxSubscriptions {
		if err := c.HoldSubscription(ctx, fmt.Sprintf("test://r%d", i)); err != nil {
			t.Fatalf("hold %d: %v", i, err)
		}
	}
	if err := c.HoldSubscription(ctx, "test://one-more"); errCode(t, err) != BadRequest {
		t.Errorf("a hold beyond the cap: %v", err)
	}
	if err := c.HoldSubscription(ctx, "test://r0"); err != nil {
		t.Errorf("a second hold of a held URI: %v", err)
	}
	if err := c.ReleaseSubscription(ctx, "test://r1"); err != nil {
		t.Fatal(err)
	}
	if err := c.HoldSubscription(ctx, "test://after-release"); err != nil {
		t.Errorf("a hold after a release: %v", err)
	}
	if err := c.ReleaseSubscription(ctx, "test://after-release"); err != nil {
		t.Fatal(err)
	}
	for name, uri := range map[string]string{"long": "test://" + strings.Repeat("a", 100<<10), "two lines": "test://a\nb"} {
		if err := c.HoldSubscription(ctx, uri); errCode(t, err) != BadRequest {
			t.Errorf("a %s URI: %v", name, err)
		}
	}
	if n := asked.Load(); n != wire.MaxSubscriptions+1 {
		t.Errorf("the server was asked %d times, want %d", n, wire.MaxSubscriptions+1)
	}
}
