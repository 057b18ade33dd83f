package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/service"
)

// A --store (or $SWITCHBOARD_STORE) that is not a PostgreSQL URL stops
// serve and login before they listen or open anything, saying what is
// accepted and never showing the password.
func TestABadStoreStopsServeAndLoginWithoutThePassword(t *testing.T) {
	const secret = "pw-SECRET-123"
	bad := "mysql://root:" + secret + "@db.example/switchboard"
	dir := filepath.Join(t.TempDir(), "data")
	check := func(how string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: a mysql:// store was taken", how)
		}
		if msg := err.Error(); !strings.Contains(msg, "--store") || !strings.Contains(msg, "postgres://") || strings.Contains(msg, secret) {
			t.Errorf("%s: %q; want it to name --store and what is accepted, without the password", how, msg)
		}
	}
	check("serve --store", serve([]string{"--data", dir, "--addr", "127.0.0.1:0", "--store", bad}))
	t.Setenv("SWITCHBOARD_STORE", bad)
	check("login with $SWITCHBOARD_STORE", login([]string{"--data", dir}))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was created for a store that was refused: %v", err)
	}
}

// Without --store, login keeps to SQLite in the data directory.
func TestWithoutStoreLoginUsesSQLiteInTheDataDirectory(t *testing.T) {
	t.Setenv("SWITCHBOARD_STORE", "")
	os.Unsetenv("SWITCHBOARD_STORE")
	dir := t.TempDir()
	if _, err := authn.LoadOrCreateKey(filepath.Join(dir, service.KeyFile)); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = login([]string{"--data", dir})
	os.Stdout = stdout
	w.Close()
	printed, _ := io.ReadAll(r)
	if err != nil || !strings.HasPrefix(string(printed), "http://127.0.0.1:8080"+authn.LoginPath+"?code=") {
		t.Fatalf("login printed %q, %v; want a login link", printed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "switchboard.db")); err != nil {
		t.Errorf("no SQLite database in the data directory: %v", err)
	}
}
