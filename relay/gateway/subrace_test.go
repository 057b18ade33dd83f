package gateway_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
)

// Two subscribes of one resource that cross (the first still waiting on
// the server) are one subscription: one unsubscribe releases it.
func TestCrossingSubscribesAreReleasedByOneUnsubscribe(t *testing.T) {
	arrived := make(chan struct{})
	proceed := make(chan struct{})
	unsubscribed := make(chan struct{}, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "subs", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(ctx context.Context, _ *mcp.SubscribeRequest) error {
			close(arrived)
			select {
			case <-proceed:
			case <-ctx.Done():
			}
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			unsubscribed <- struct{}{}
			return nil
		},
	})
	srv.AddResource(&mcp.Resource{URI: "note://one", Name: "one"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://one", Text: "one"}}}, nil
		})
	url := serveUpstream(t, srv)
	r := newRelay(t, broker.Config{})
	id := r.add("alice", "subs", url)
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1"})
	a := r.connect("k1", gateway.ServerPath+id, eras[0])
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()

	waiting := make(chan struct{}, 1)
	gateway.OnSubscribeWait(t, func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	})
	subscribe := func(out chan<- error) { out <- a.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "note://one"}) }
	first, second := make(chan error, 1), make(chan error, 1)
	go subscribe(first)
	<-arrived
	go subscribe(second)
	// The second crosses the first: it reaches the relay while the first
	// still waits on the server.
	select {
	case <-waiting:
	case err := <-second:
		t.Fatalf("the second subscribe ended (%v) while the first still waited on the server", err)
	case <-ctx.Done():
		t.Fatal("the second subscribe never waited for the first")
	}
	close(proceed)
	for _, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := a.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "note://one"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-unsubscribed:
	case <-ctx.Done():
		t.Fatal("the server was not told after the agent unsubscribed")
	}
}
