package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/disktest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Adding a server while the relay's disk is full fails saying so (the
// dashboard shows "Could not add the server: the relay's disk is full"),
// and adds it once space returns.
func TestAddingAServerOnAFullDiskSaysSo(t *testing.T) {
	disk := disktest.Mount(t, "2m")
	f := newFixture(t, filepath.Join(disk.Dir, "data"))
	ctx := context.Background()
	disk.FillUnder(f.store)
	s := f.m.Session("alice")
	var err error
	var i int
	for i = 0; i < 100 && err == nil; i++ { // a write may still fit in space the store holds
		_, err = s.AddServer(ctx, fmt.Sprint("docs ", i, strings.Repeat("d", 80)), fmt.Sprint("http://example.com/", i))
	}
	var we *wire.Error
	if !errors.As(err, &we) || we.Message != "the relay's disk is full" {
		t.Fatalf("add on a full disk: %v, want the disk named", err)
	}
	// Any op failing in the store for want of disk says so too.
	storeErr := f.store.SetRoots(ctx, "alice", []store.Root{{URI: "file:///" + strings.Repeat("r", 4000), Name: "big"}})
	if we := asWireError(fmt.Errorf("an op: %w", storeErr)); we.Message != "the relay's disk is full" {
		t.Errorf("another op's store failure on a full disk shows as %q (%v)", we.Message, storeErr)
	}
	disk.Free()
	if _, err := s.AddServer(ctx, "docs again", "http://example.com/again"); err != nil {
		t.Fatalf("add once space returned: %v", err)
	}
}
