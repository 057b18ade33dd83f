package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/disktest"
)

// Opening a store on a full disk fails naming the disk, also where the
// database file could still be created but not written (SQLite then reports
// an I/O error rather than a full disk).
func TestOpenOnAFullDiskNamesIt(t *testing.T) {
	store.SQLiteOnly(t)
	disk := disktest.Mount(t, "2m")
	ctx := context.Background()
	dir := filepath.Join(disk.Dir, "data")
	s, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, name := range []string{"switchboard.db", "switchboard.db-wal", "switchboard.db-shm"} {
		os.Remove(filepath.Join(dir, name))
	}
	disk.Fill()
	_, err = store.Open(ctx, dir)
	if !errors.Is(err, store.ErrDiskFull) || !store.DiskFull(err) || !strings.Contains(err.Error(), "the relay's disk is full") {
		t.Fatalf("open on a full disk: %v, want the disk named", err)
	}
	disk.Free()
	s, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatalf("open once space returned: %v", err)
	}
	s.Close()
}

// Writes on a full disk fail naming it and the store is not ready; once
// space returns it is ready again and every write succeeds.
func TestWritesOnAFullDiskNameItAndResume(t *testing.T) {
	store.SQLiteOnly(t)
	disk := disktest.Mount(t, "2m")
	ctx := context.Background()
	s := disk.OpenStore()
	disk.FillUnder(s)
	if err := s.Ready(ctx); !errors.Is(err, store.ErrDiskFull) {
		t.Fatalf("ready on a full disk: %v, want the disk named", err)
	}
	put := func(i int) error {
		return s.PutServer(ctx, store.Server{User: "ann", ID: fmt.Sprint("s", i), Name: fmt.Sprint("server ", i, strings.Repeat("n", 2000)),
			URL: "http://127.0.0.1:1/mcp", Transport: "streamable"})
	}
	var i int
	var err error
	for i = 0; i < 1000; i++ {
		if err = put(i); err != nil {
			break
		}
	}
	if !errors.Is(err, store.ErrDiskFull) || !strings.Contains(err.Error(), "the relay's disk is full") {
		t.Fatalf("write %d on a full disk: %v, want the disk named", i, err)
	}
	disk.Free()
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("ready once space returned: %v", err)
	}
	if err := put(i); err != nil {
		t.Fatalf("write once space returned: %v", err)
	}
	servers, err := s.Servers(ctx, "ann")
	if err != nil || len(servers) != i+1 {
		t.Fatalf("%d servers (%v), want %d", len(servers), err, i+1)
	}
}
