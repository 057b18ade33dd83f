package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// openTemp opens a store in a fresh database of the engine under test (see
// engines_test.go) and closes it with the test.
func openTemp(t *testing.T) (*store.Store, store.TestDB) {
	t.Helper()
	return store.OpenTest(t)
}

func TestOpenCreatesPrivateDirectory(t *testing.T) {
	store.SQLiteOnly(t)
	_, db := openTemp(t)
	dir := db.Dir
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o700 {
		t.Errorf("data directory mode = %o, want 700", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "switchboard.db")); err != nil {
		t.Errorf("database file: %v", err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	s, db := openTemp(t)
	if err := s.PutServer(ctx, store.Server{User: "ann", ID: "s1", Name: "docs", URL: "http://127.0.0.1:1/mcp", Transport: "streamable"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSetting(ctx, "theme", "dark"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = store.OpenAt(t, db)
	servers, err := s.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 1 || servers[0].Name != "docs" {
		t.Errorf("servers after reopen = %+v, want the one docs server", servers)
	}
	if v, ok, err := s.Setting(ctx, "theme"); err != nil || !ok || v != "dark" {
		t.Errorf("Setting(theme) after reopen = %q, %v, %v; want dark, true, nil", v, ok, err)
	}
}

func TestOpenFailsWhenDirectoryCannotBeCreated(t *testing.T) {
	store.SQLiteOnly(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := store.Open(context.Background(), filepath.Join(file, "data")); err == nil {
		s.Close()
		t.Fatal("Open under a regular file succeeded")
	}
}

// A data directory that already exists with wider permissions (one the
// command line was pointed at) still gets a database, WAL and shared memory
// only the relay's user can read.
func TestOpenCreatesPrivateFilesInAnExistingDirectory(t *testing.T) {
	store.SQLiteOnly(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetSetting(context.Background(), "theme", "dark"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"switchboard.db", "switchboard.db-wal", "switchboard.db-shm"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := info.Mode().Perm(); got&0o077 != 0 {
			t.Errorf("%s mode = %o; others may read it", name, got)
		}
	}
}

// A new data directory is 0700 and the database, its WAL and its shared
// memory are 0600; files an older relay left readable by others are made
// private when the store opens.
func TestStoreFilesArePrivate(t *testing.T) {
	store.SQLiteOnly(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetSetting(ctx, "theme", "dark"); err != nil {
		t.Fatal(err)
	}
	names := []string{"switchboard.db", "switchboard.db-wal", "switchboard.db-shm"}
	checkModes := func(when string) {
		t.Helper()
		if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: data directory: %v %v, want 700", when, info.Mode().Perm(), err)
		}
		for _, name := range names {
			info, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %s: %v", when, name, err)
				continue
			}
			if got := info.Mode().Perm(); got != 0o600 {
				t.Errorf("%s: %s mode = %o, want 600", when, name, got)
			}
		}
	}
	checkModes("created")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "switchboard.db-wal"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetSetting(ctx, "theme", "light"); err != nil {
		t.Fatal(err)
	}
	checkModes("reopened")
}
