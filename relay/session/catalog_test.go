package session

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/catalog"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// testCatalog parses doc as the operator's file, with SEARCH_TOKEN set.
func testCatalog(t *testing.T, doc string) catalog.Catalog {
	t.Helper()
	c, err := catalog.Parse([]byte(doc), t.TempDir(), func(name string) (string, bool) {
		return map[string]string{"SEARCH_TOKEN": "op-secret"}[name], name == "SEARCH_TOKEN"
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDashboardsSeeTheCatalogAndItsChanges(t *testing.T) {
	first := testCatalog(t, `{"servers": [{"name": "Docs", "url": "http://127.0.0.1:9/docs", "description": "Handbook", "auth": "person"}]}`)
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Catalog = first })
	s := f.m.Session("alice")
	d := openDashboard(t, s)
	if got := d.until("the catalog", func(s wire.Snapshot) bool { return len(s.Catalog) == 1 }).Catalog; got[0].ID != "docs" || got[0].Description != "Handbook" {
		t.Fatalf("catalog shown = %+v", got)
	}
	sub := s.Subscribe(wire.Hello{})
	snapshotOf(t, sub)

	second := testCatalog(t, `{"servers": [
	  {"name": "Docs", "url": "http://127.0.0.1:9/docs", "auth": "person"},
	  {"id": "search", "name": "Search", "url": "http://127.0.0.1:9/search", "transport": "sse", "auth": "machine",
	   "headers": {"Authorization": {"env": "SEARCH_TOKEN", "prefix": "Bearer "}}}]}`)
	f.m.SetCatalog(second)
	fr := next(t, sub)
	if strings.Contains(string(fr.Data), "op-secret") {
		t.Fatalf("the delta carries the machine credential: %s", fr.Data)
	}
	changes := changesOf(t, fr)
	if len(changes) != 1 || changes[0].Kind != wire.KindCatalog {
		t.Fatalf("changes %+v; want one catalog change", changes)
	}
	if shown := d.at(fr.Seq).Catalog; !reflect.DeepEqual(shown, second.Public()) {
		t.Fatalf("catalog shown = %+v; want %+v", shown, second.Public())
	}
	other := openDashboard(t, f.m.Session("bob"))
	if got := other.until("the catalog", func(s wire.Snapshot) bool { return len(s.Catalog) == 2 }).Catalog; got[1].Auth != wire.CatalogAuthMachine {
		t.Fatalf("bob's catalog = %+v", got)
	}
}

func TestAddingFromTheCatalogTakesTheRelaysCopy(t *testing.T) {
	cat := testCatalog(t, `{"servers": [{"id": "search", "name": "Search", "url": "http://127.0.0.1:9/search", "transport": "sse", "auth": "machine",
	   "headers": {"Authorization": {"env": "SEARCH_TOKEN", "prefix": "Bearer "}}}]}`)
	f := newFixtureWith(t, t.TempDir(), func(c *Config) { c.Catalog = cat })
	s := f.m.Session("alice")
	ctx := context.Background()

	if _, err := s.Add(ctx, wire.AddServerArgs{Catalog: "search", URL: "http://127.0.0.1:9/mine"}); codeOf(err) != wire.CodeBadRequest {
		t.Fatalf("a catalog id with a URL of the browser's: %v; want bad_request", err)
	}
	if _, err := s.Add(ctx, wire.AddServerArgs{Catalog: "nope"}); codeOf(err) != wire.CodeNotFound {
		t.Fatalf("an unknown catalog id: %v; want not_found", err)
	}
	res, err := s.Add(ctx, wire.AddServerArgs{Catalog: "search"})
	if err != nil {
		t.Fatal(err)
	}
	reg := f.conn(res.ID).dial.Reg
	if reg.Name != "Search" || reg.URL != "http://127.0.0.1:9/search" || reg.Transport != string(wire.TransportSSE) || reg.Headers["Authorization"] != "Bearer op-secret" {
		t.Fatalf("registration = %+v", reg)
	}
	again, err := s.Add(ctx, wire.AddServerArgs{Catalog: "search"})
	if err != nil || !again.Existing || again.ID != res.ID {
		t.Fatalf("adding it again = %+v, %v; want the existing server", again, err)
	}
	snap, _ := s.Snapshot()
	for _, srv := range snap.Servers {
		if srv.ID == res.ID && !reflect.DeepEqual(srv.HeaderNames, []string{"Authorization"}) {
			t.Fatalf("header names shown = %v", srv.HeaderNames)
		}
	}
}
