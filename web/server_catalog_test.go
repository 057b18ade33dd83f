package web

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCatalogShowsEntriesAsTextAndWhichAreAdded(t *testing.T) {
	catalog := []wire.CatalogEntry{
		{ID: "demo", Name: "Demo", URL: "http://127.0.0.1:9001/mcp", Transport: wire.TransportAuto, Auth: wire.CatalogAuthPerson},
		{ID: "search", Name: "Search " + hostile, URL: "https://search.example.com/mcp", Transport: wire.TransportSSE,
			Description: "Finds " + hostile, Auth: wire.CatalogAuthMachine},
	}
	html := rendered(t, &ServerList{Servers: servers(), Catalog: catalog, Loaded: true})
	if element(html, `id="server-catalog"`) == "" {
		t.Fatalf("no catalog under Add server:\n%s", html)
	}
	if n := strings.Count(html, `class="catalog-entry"`); n != 2 {
		t.Errorf("%d catalog entries, want 2", n)
	}
	if n := strings.Count(html, `class="sb-button catalog-add"`); n != 1 {
		t.Errorf("%d Add buttons, want 1: the demo's URL is already one of the person's servers", n)
	}
	if n := strings.Count(html, `class="catalog-added"`); n != 1 {
		t.Errorf("%d entries shown as added, want 1", n)
	}
	for _, want := range []string{"Finds &lt;img src=x onerror=alert(1)&gt;", "the relay signs in for you", "your own account"} {
		if !strings.Contains(html, want) {
			t.Errorf("catalog lacks %s", want)
		}
	}
	if !strings.Contains(html, `<span class="catalog-name">Search &lt;img`) {
		t.Error("an entry's name is not rendered as text")
	}

	if html := rendered(t, &ServerList{Servers: servers(), Loaded: true}); element(html, `id="server-catalog"`) != "" {
		t.Error("an empty catalog is shown")
	}
}
