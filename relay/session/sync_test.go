package session

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// readCounter is a store that counts the reads of each user's servers.
type readCounter struct {
	*store.Store
	mu    sync.Mutex
	reads map[string]int
}

func (c *readCounter) Servers(ctx context.Context, user string) ([]store.Server, error) {
	c.mu.Lock()
	c.reads[user]++
	c.mu.Unlock()
	return c.Store.Servers(ctx, user)
}

// took returns the reads since the last call, by user.
func (c *readCounter) took() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := maps.Clone(c.reads)
	clear(c.reads)
	return out
}

// A write elsewhere makes Sync read the servers of the users it changed,
// not those of every live session.
func TestSyncReadsOnlyTheUsersWhoseServersChanged(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	counter := &readCounter{Store: f.store, reads: map[string]int{}}
	f.m.store = counter // before any session reads it
	for _, user := range []string{"alice", "bob", "carol"} {
		addServer(t, f.m.Session(user), "first", "http://127.0.0.1:9/"+user)
	}
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	counter.took()

	other, err := store.Open(context.Background(), dir) // the command line
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.SetSetting(context.Background(), "unrelated", "1"); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := counter.took(); len(got) != 0 {
		t.Errorf("a write that touched no servers read %v", got)
	}

	added := store.Server{User: "bob", ID: "cafe00000002", Name: "second", URL: "http://127.0.0.1:9/b2", Transport: string(wire.TransportStreamable), CreatedAt: time.Now()}
	if err := other.PutServer(context.Background(), added); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := counter.took(); len(got) != 1 || got["bob"] != 1 {
		t.Errorf("after bob's server was added elsewhere, Sync read %v; want bob's alone", got)
	}
	if n := len(f.m.Session("bob").Servers()); n != 2 {
		t.Errorf("bob has %d servers, want 2", n)
	}
	if err := f.m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := counter.took(); len(got) != 0 {
		t.Errorf("a Sync with nothing new read %v", got)
	}
}
