package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// catalogInterval is how often the tests' relays look at their catalog file.
const catalogInterval = 50 * time.Millisecond

// teamKey is the machine credential of the tests' "Team tools" server: the
// relay reads it from the environment and sends it as X-Team-Key.
const teamKey = "team-key-never-in-a-frame"

// catalogFile is an operator's catalog file the test rewrites.
type catalogFile struct {
	t    testing.TB
	path string
}

// newCatalogFile writes servers as a catalog file.
func newCatalogFile(t testing.TB, servers ...map[string]any) *catalogFile {
	t.Helper()
	f := &catalogFile{t: t, path: filepath.Join(t.TempDir(), "catalog.json")}
	f.write(servers...)
	return f
}

// write replaces the file's servers, in one rename, as an editor saves.
func (f *catalogFile) write(servers ...map[string]any) {
	f.t.Helper()
	b, err := json.Marshal(map[string]any{"servers": servers})
	if err != nil {
		f.t.Fatal(err)
	}
	tmp := f.path + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		f.t.Fatal(err)
	}
}

// startCatalogRelay starts a relay offering the catalog of f.
func startCatalogRelay(t testing.TB, f *catalogFile) *relay {
	t.Helper()
	return startRelayWith(t, func(c *service.Config) {
		c.CatalogFile = f.path
		c.CatalogInterval = catalogInterval
	})
}

// teamServer serves an MCP server that answers only requests carrying the
// team's key.
func teamServer(t testing.TB) *fixture.Loopback {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "team", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the team"}}}, nil, nil
	})
	return fixture.ServeOnce(t, srv, fixture.WrapMCP(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Team-Key") != teamKey {
				http.Error(w, "no team key", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}))
}

func TestCatalogChangesReachEveryDashboardOverTheSocket(t *testing.T) {
	t.Setenv("TEAM_KEY", teamKey)
	f := newCatalogFile(t, map[string]any{"name": "Docs", "url": "https://docs.example.com/mcp", "auth": "person"})
	r := startCatalogRelay(t, f)
	s, snap := r.openSocket(t, r.sessionCookie(t))
	if len(snap.Catalog) != 1 || snap.Catalog[0].ID != "docs" {
		t.Fatalf("snapshot catalog = %+v", snap.Catalog)
	}
	other, _ := r.openSocket(t, r.sessionCookie(t))

	f.write(
		map[string]any{"name": "Docs", "url": "https://docs.example.com/mcp", "auth": "person"},
		map[string]any{"id": "team", "name": "Team tools", "url": "https://team.example.com/mcp", "description": "Shared", "auth": "machine",
			"headers": map[string]any{"X-Team-Key": map[string]string{"env": "TEAM_KEY"}}},
	)
	for _, d := range []*socket{s, other} {
		v := d.dashboard().Until("two catalog entries", func(v store.View) bool { return len(v.Snapshot.Catalog) == 2 })
		if e := v.Snapshot.Catalog[1]; e.ID != "team" || e.Auth != wire.CatalogAuthMachine || e.Description != "Shared" {
			t.Errorf("catalog entry = %+v", e)
		}
		b, _ := json.Marshal(v.Snapshot)
		if strings.Contains(string(b), teamKey) {
			t.Error("the machine credential reached a dashboard")
		}
	}

	f.write(map[string]any{"name": "Broken", "url": "gopher://x", "auth": "person"})
	f.write(map[string]any{"name": "Docs", "url": "https://docs.example.com/mcp", "auth": "person"})
	s.dashboard().Until("the catalog after a bad version and a good one", func(v store.View) bool {
		return len(v.Snapshot.Catalog) == 1 && v.Snapshot.Catalog[0].ID == "docs"
	})
}

func TestCatalogListsAddsWithAClickAndFollowsTheFile(t *testing.T) {
	t.Setenv("TEAM_KEY", teamKey)
	fx := fixture.Start(t)
	team := teamServer(t)
	entries := []map[string]any{
		{"id": "fixture", "name": "Fixture", "url": fx.URL(), "description": "Greets people", "auth": "person"},
		{"id": "team", "name": "Team tools", "url": team.URL(), "transport": "streamable-http", "auth": "machine",
			"headers": map[string]any{"X-Team-Key": map[string]string{"env": "TEAM_KEY"}}},
	}
	f := newCatalogFile(t, entries...)
	r := startCatalogRelay(t, f)
	p := openTab(t)
	p.login(r)

	entry := func(id string) string { return fmt.Sprintf(`.catalog-entry[data-catalog=%s]`, jsString(id)) }
	p.waitPresent(entry("fixture") + " .catalog-add")
	p.waitText(entry("fixture")+" .catalog-description", "Greets people")
	p.waitPresent(entry("team") + " .catalog-add")
	p.screenshot("dashboard-catalog")

	p.click(entry("fixture") + " .catalog-add")
	p.waitServer("Fixture", wire.StateReady)
	p.waitPresent(entry("fixture") + " .catalog-added")
	p.click(entry("team") + " .catalog-add")
	p.waitServer("Team tools", wire.StateReady) // only with the key the relay sent
	p.waitPresent(entry("team") + " .catalog-added")

	eval[any](p, setReloadMarker)
	f.write(append(entries, map[string]any{"id": "later", "name": "Later", "url": "https://later.example.com/mcp", "auth": "person"})...)
	p.waitPresent(entry("later") + " .catalog-add")
	if !eval[bool](p, checkReloadMarker) {
		t.Error("the page reloaded to show the catalog's change; it must update in place")
	}
}
