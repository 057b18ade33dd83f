package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestSubscriptionsAreKeptPerServerAndGoWithIt(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for _, srv := range []store.Server{
		{User: "ann", ID: "a", Name: "one", URL: "http://127.0.0.1:1/mcp", Transport: "streamable-http"},
		{User: "ann", ID: "b", Name: "two", URL: "http://127.0.0.1:2/mcp", Transport: "streamable-http"},
	} {
		if err := s.PutServer(ctx, srv); err != nil {
			t.Fatal(err)
		}
	}
	for _, uri := range []string{"file:///x", "file:///y", "file:///x"} {
		if err := s.AddSubscription(ctx, "ann", "a", uri); err != nil {
			t.Fatalf("add %s: %v", uri, err)
		}
	}
	if err := s.AddSubscription(ctx, "ann", "b", "file:///z"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddSubscription(ctx, "ann", "ghost", "file:///z"); err == nil {
		t.Error("a subscription of a server that does not exist was stored")
	}
	if got, _ := s.Subscriptions(ctx, "ann", "a"); !slices.Equal(got, []string{"file:///x", "file:///y"}) {
		t.Errorf("subscriptions of a = %q", got)
	}
	if err := s.RemoveSubscription(ctx, "ann", "a", "file:///x"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Subscriptions(ctx, "ann", "a"); !slices.Equal(got, []string{"file:///y"}) {
		t.Errorf("after removing x: %q", got)
	}
	if err := s.DeleteServer(ctx, "ann", "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Subscriptions(ctx, "ann", "a"); len(got) != 0 {
		t.Errorf("deleting the server left its subscriptions %q", got)
	}
	if got, _ := s.Subscriptions(ctx, "ann", "b"); !slices.Equal(got, []string{"file:///z"}) {
		t.Errorf("another server's subscriptions changed: %q", got)
	}
}
