// Package disktest gives tests a small disk of their own that they can fill
// up and free again: a tmpfs mounted for the test, which needs root. Tests
// skip, saying so, where the machine does not allow it.
package disktest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Disk is a tmpfs mounted for one test.
type Disk struct {
	t   testing.TB
	Dir string // where it is mounted
}

// fillerName is the file that fills a disk.
const fillerName = "filler"

// Mount mounts a tmpfs of size (for example "2m") on a fresh directory and
// unmounts it when the test ends; without root, or without mount, the test
// is skipped with a message saying why.
func Mount(t testing.TB, size string) *Disk {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is tested on a tmpfs, which only root can mount; run as root to test it")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("a full disk is tested on a tmpfs, which could not be mounted here: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmount the test's tmpfs: %v: %s", err, out)
		}
	})
	return &Disk{t: t, Dir: dir}
}

// Fill writes a file until the disk has no space left.
func (d *Disk) Fill() {
	d.t.Helper()
	f, err := os.OpenFile(filepath.Join(d.Dir, fillerName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		d.t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				d.t.Fatalf("fill the disk: %v", err)
			}
			break
		}
	}
	// Smaller writes take what a page-sized one could not.
	for _, err := f.Write(block[:1]); err == nil; _, err = f.Write(block[:1]) {
	}
}

// Free removes what Fill wrote.
func (d *Disk) Free() {
	d.t.Helper()
	if err := os.Remove(filepath.Join(d.Dir, fillerName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		d.t.Fatal(err)
	}
}

// OpenStore opens a store in the disk's data directory; it is closed when
// the test ends.
func (d *Disk) OpenStore() *store.Store {
	d.t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(d.Dir, "data"))
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { st.Close() })
	return st
}

// FillUnder fills the disk once st's write-ahead log is emptied into its
// database (st.Ready does that), so that each write of st then needs new
// space.
func (d *Disk) FillUnder(st *store.Store) {
	d.t.Helper()
	if err := st.Ready(context.Background()); err != nil {
		d.t.Fatalf("ready before the disk filled: %v", err)
	}
	d.Fill()
}
