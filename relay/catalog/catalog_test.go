package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func env(vars map[string]string) Env {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

func TestParseTakesAWellFormedCatalog(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "search.key"), []byte("k-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := `{"servers": [
	  {"name": "Docs", "url": "HTTPS://Docs.Example.com/mcp/", "description": "The handbook", "auth": "person"},
	  {"id": "search", "name": "Team search", "url": "https://search.example.com/mcp?api_key=s3cret", "transport": "sse", "auth": "machine",
	   "headers": {"authorization": {"env": "SEARCH_TOKEN", "prefix": "Bearer "}, "X-Key": {"file": "search.key"}}}
	]}`
	c, err := Parse([]byte(doc), dir, env(map[string]string{"SEARCH_TOKEN": "tok"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 2 {
		t.Fatalf("entries = %d", len(c.Entries))
	}
	docs := c.Entries[0]
	if docs.ID != "docs" || docs.URL != "https://docs.example.com/mcp" || docs.Transport != wire.TransportAuto || docs.Auth != wire.CatalogAuthPerson || docs.Description != "The handbook" {
		t.Errorf("docs = %+v", docs)
	}
	search, ok := c.Lookup("search")
	if !ok {
		t.Fatal("search not found")
	}
	if search.Headers["Authorization"] != "Bearer tok" || search.Headers["X-Key"] != "k-from-file" {
		t.Errorf("headers = %v", search.Headers)
	}
	if strings.Contains(search.URL, "s3cret") || !strings.Contains(search.FullURL, "s3cret") {
		t.Errorf("url shown %q, full %q: the secret query value must be masked only in the shown one", search.URL, search.FullURL)
	}
	for _, p := range c.Public() {
		if p.ID == "search" && strings.Contains(p.URL, "s3cret") {
			t.Errorf("public entry shows the secret: %+v", p)
		}
	}
}

func TestParseRefusesBadCatalogsWithTheReason(t *testing.T) {
	vars := env(map[string]string{"SET": "v"})
	cases := []struct{ name, doc, want string }{
		{"not json", `[`, "not a JSON object"},
		{"unknown field", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "person", "colour": "red"}]}`, "colour"},
		{"invalid url", `{"servers": [{"name": "a", "url": "ftp://a.example", "auth": "person"}]}`, `server 1 ("a"): url`},
		{"no url", `{"servers": [{"name": "a", "auth": "person"}]}`, "url"},
		{"duplicate id", `{"servers": [{"name": "A", "url": "https://a.example/mcp", "auth": "person"}, {"id": "a", "name": "B", "url": "https://b.example/mcp", "auth": "person"}]}`, `server 2 ("B"): the id "a" is also server 1's`},
		{"duplicate name", `{"servers": [{"id": "x", "name": "Same", "url": "https://a.example/mcp", "auth": "person"}, {"id": "y", "name": "same", "url": "https://b.example/mcp", "auth": "person"}]}`, "the name is also server 1's"},
		{"unknown transport", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "transport": "websocket", "auth": "person"}]}`, `unknown transport "websocket"`},
		{"stdio transport", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "transport": "stdio", "auth": "person"}]}`, "--stdio-config"},
		{"command", `{"servers": [{"name": "a", "command": "/bin/x", "auth": "person"}]}`, "--stdio-config"},
		{"no auth", `{"servers": [{"name": "a", "url": "https://a.example/mcp"}]}`, "no auth"},
		{"unknown auth", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "team"}]}`, `unknown auth "team"`},
		{"machine without headers", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "machine"}]}`, "needs headers"},
		{"person with headers", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "person", "headers": {"X-K": {"env": "SET"}}}]}`, "machine credentials"},
		{"unset variable", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "machine", "headers": {"X-K": {"env": "UNSET"}}}]}`, "UNSET is not set"},
		{"missing file", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "machine", "headers": {"X-K": {"file": "nope"}}}]}`, `header "X-K"`},
		{"both sources", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "machine", "headers": {"X-K": {"env": "SET", "file": "f"}}}]}`, "exactly one"},
		{"bad header name", `{"servers": [{"name": "a", "url": "https://a.example/mcp", "auth": "machine", "headers": {"Host": {"env": "SET"}}}]}`, `header "Host"`},
		{"no name", `{"servers": [{"url": "https://a.example/mcp", "auth": "person"}]}`, "no name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), t.TempDir(), vars)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
			if strings.Contains(err.Error(), `"v"`) {
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}
}

func TestWatchHandsOverChangesAndKeepsThePreviousOnABadOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.json")
	// Each version replaces the file at once (written beside it, then
	// renamed), as a deploy does: a look every 5 ms on a loaded machine can
	// otherwise read a file truncated and not yet written twice in a row.
	write := func(doc string) {
		t.Helper()
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"servers": [{"name": "One", "url": "https://one.example/mcp", "auth": "person"}]}`)
	first, loaded, err := Load(path, env(nil))
	if err != nil || len(first.Entries) != 1 {
		t.Fatalf("load: %v %+v", err, first)
	}
	changed, failed := make(chan Catalog, 4), make(chan error, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, path, 5*time.Millisecond, env(nil), loaded, func(c Catalog) { changed <- c }, func(err error) { failed <- err })
	}()
	defer func() { cancel(); <-done }()

	write(`{"servers": [{"name": "One", "url": "https://one.example/mcp", "auth": "person"}, {"name": "Two", "url": "https://two.example/mcp", "auth": "person"}]}`)
	select {
	case c := <-changed:
		if len(c.Entries) != 2 || c.Entries[1].ID != "two" {
			t.Fatalf("changed to %+v", c)
		}
	case err := <-failed:
		t.Fatalf("failed: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported")
	}

	write(`{"servers": [{"name": "Bad", "url": "gopher://x", "auth": "person"}]}`)
	select {
	case c := <-changed:
		t.Fatalf("a bad catalog was handed over: %+v", c)
	case err := <-failed:
		if !strings.Contains(err.Error(), `("Bad"): url`) {
			t.Fatalf("failed with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no failure reported")
	}

	write(`{"servers": []}`)
	select {
	case c := <-changed:
		if len(c.Entries) != 0 {
			t.Fatalf("changed to %+v", c)
		}
	case err := <-failed:
		t.Fatalf("failed again: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the fix was not reported")
	}
}
