package session

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// A manager on demand connects a user's servers only once it owns them,
// leaves the users it does not own alone when the store changes, and lets
// a user go whole.
// dialed counts the connections opened so far.
func (f *fixture) dialed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

func TestOnDemandAUserStartsWhenOwnedAndEndsWhenReleased(t *testing.T) {
	ctx := context.Background()
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.OnDemand = true })
	for _, reg := range []store.Server{
		{User: "alice", ID: "a1", Name: "one", URL: "http://127.0.0.1:9/a1"},
		{User: "bob", ID: "b1", Name: "one", URL: "http://127.0.0.1:9/b1"},
	} {
		if err := f.store.PutServer(ctx, reg); err != nil { // as the command line writes
			t.Fatal(err)
		}
	}
	if err := f.m.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.dialed(); n != 0 {
		t.Fatalf("before anyone was owned, %d connections were opened", n)
	}

	if err := f.m.Own(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.m.Session("alice").Server("a1"); !ok || f.dialed() != 1 {
		t.Fatalf("owning alice: her server held %v, %d connections; want hers alone", ok, f.dialed())
	}
	if err := f.store.PutServer(ctx, store.Server{User: "bob", ID: "b2", Name: "two", URL: "http://127.0.0.1:9/b2"}); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f.dialed() != 1 {
		t.Errorf("a change to bob, whom the manager does not own, opened connections: %d in all", f.dialed())
	}

	f.m.Release("alice")
	c := f.conn("a1")
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if !closed {
		t.Error("alice's connection is open after she was let go")
	}
	if _, ok := f.m.lookup("alice"); ok {
		t.Error("alice's session is kept after she was let go")
	}
}
