package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// names lists the servers as user/name, in order.
func names(servers []store.Server) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = s.User + "/" + s.Name
	}
	return out
}

func TestServersListInCreationOrderAndDelete(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	// Put out of creation order; the list follows CreatedAt.
	for _, srv := range []store.Server{
		{User: "ann", ID: "b", Name: "second", URL: "http://127.0.0.1:2/mcp", Transport: "streamable", CreatedAt: base.Add(time.Minute)},
		{User: "ann", ID: "a", Name: "first", URL: "http://127.0.0.1:1/mcp", Transport: "sse", CreatedAt: base},
		{User: "ann", ID: "c", Name: "third", URL: "http://127.0.0.1:3/mcp", Transport: "streamable", CreatedAt: base.Add(2 * time.Minute)},
	} {
		if err := s.PutServer(ctx, srv); err != nil {
			t.Fatalf("PutServer(%s): %v", srv.ID, err)
		}
	}
	got, err := s.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ann/first", "ann/second", "ann/third"}; !slices.Equal(names(got), want) {
		t.Fatalf("Servers = %v, want %v", names(got), want)
	}
	first := got[0]
	if first.ID != "a" || first.URL != "http://127.0.0.1:1/mcp" || first.Transport != "sse" || !first.CreatedAt.Equal(base) {
		t.Errorf("first server = %+v, fields not kept", first)
	}

	if err := s.DeleteServer(ctx, "ann", "b"); err != nil {
		t.Fatalf("DeleteServer: %v", err)
	}
	got, err = s.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ann/first", "ann/third"}; !slices.Equal(names(got), want) {
		t.Errorf("after delete Servers = %v, want %v", names(got), want)
	}
	if err := s.DeleteServer(ctx, "ann", "b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second DeleteServer error = %v, want ErrNotFound", err)
	}
}

func TestPutServerWithSameIDReplacesButKeepsPlace(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "a", Name: "one", URL: "http://127.0.0.1:1/mcp", Transport: "sse", CreatedAt: base}))
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "b", Name: "two", URL: "http://127.0.0.1:2/mcp", Transport: "sse", CreatedAt: base.Add(time.Second)}))
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "a", Name: "renamed", URL: "http://127.0.0.1:9/mcp", Transport: "streamable"}))

	got, err := s.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ann/renamed", "ann/two"}; !slices.Equal(names(got), want) {
		t.Fatalf("Servers = %v, want %v", names(got), want)
	}
	if got[0].URL != "http://127.0.0.1:9/mcp" || got[0].Transport != "streamable" || !got[0].CreatedAt.Equal(base) {
		t.Errorf("replaced server = %+v, want new URL and transport, original CreatedAt", got[0])
	}
}

func TestUsersAreIsolated(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "x", Name: "shared-name", URL: "http://127.0.0.1:1/mcp", Transport: "sse"}))
	must(t, s.PutServer(ctx, store.Server{User: "bob", ID: "x", Name: "shared-name", URL: "http://127.0.0.1:2/mcp", Transport: "sse"}))
	must(t, s.PutServer(ctx, store.Server{User: "bob", ID: "y", Name: "bobs", URL: "http://127.0.0.1:3/mcp", Transport: "sse"}))

	ann, err := s.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(ann) != 1 || ann[0].User != "ann" || ann[0].URL != "http://127.0.0.1:1/mcp" {
		t.Errorf("ann sees %+v, want only her own server", ann)
	}
	if err := s.DeleteServer(ctx, "ann", "y"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ann deleting bob's server: error = %v, want ErrNotFound", err)
	}
	must(t, s.DeleteServer(ctx, "ann", "x"))
	bob, err := s.Servers(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bob/shared-name", "bob/bobs"}; !slices.Equal(names(bob), want) {
		t.Errorf("bob's servers after ann deleted her x = %v, want %v", names(bob), want)
	}

	all, err := s.AllServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Errorf("AllServers = %v, want bob's two", names(all))
	}
}

func TestServerNameIsUniquePerUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "a", Name: "docs", URL: "http://127.0.0.1:1/mcp", Transport: "sse"}))
	must(t, s.PutServer(ctx, store.Server{User: "ann", ID: "b", Name: "other", URL: "http://127.0.0.1:2/mcp", Transport: "sse"}))

	err := s.PutServer(ctx, store.Server{User: "ann", ID: "c", Name: "docs", URL: "http://127.0.0.1:3/mcp", Transport: "sse"})
	if !errors.Is(err, store.ErrNameTaken) {
		t.Errorf("new server with a taken name: error = %v, want ErrNameTaken", err)
	}
	err = s.PutServer(ctx, store.Server{User: "ann", ID: "b", Name: "docs", URL: "http://127.0.0.1:2/mcp", Transport: "sse"})
	if !errors.Is(err, store.ErrNameTaken) {
		t.Errorf("renaming onto a taken name: error = %v, want ErrNameTaken", err)
	}
	got, err := s.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ann/docs", "ann/other"}; !slices.Equal(names(got), want) {
		t.Errorf("Servers after refused puts = %v, want %v", names(got), want)
	}
}

func TestPutServerRequiresUserIDAndName(t *testing.T) {
	s, _ := openTemp(t)
	for _, srv := range []store.Server{
		{ID: "a", Name: "n"},
		{User: "ann", Name: "n"},
		{User: "ann", ID: "a"},
	} {
		if err := s.PutServer(context.Background(), srv); err == nil {
			t.Errorf("PutServer(%+v) succeeded", srv)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
