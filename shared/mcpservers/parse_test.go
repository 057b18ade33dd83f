package mcpservers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestParseMixedEntriesKeepsOrderAndSaysWhy(t *testing.T) {
	const doc = `{
	  "mcpServers": {
	    "remote": {"url": "https://mcp.example.com/mcp"},
	    "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
	    "typed":  {"transport": "streamable_http", "url": "http://127.0.0.1:7000/mcp", "headers": {"Authorization": "Bearer s3cret"}},
	    "wind":   {"serverUrl": "https://w.example/mcp"},
	    "local":  {"command": "npx", "args": ["-y", "some-server"], "env": {"A": "1"}, "cwd": "/tmp"},
	    "nourl":  {"type": "http"},
	    "both":   {"command": "x", "url": "https://x.example/mcp"},
	    "weird":  {"type": "carrier-pigeon", "url": "https://x.example/mcp"},
	    "notobj": 42,
	    "remote": {"url": "https://other.example.com/mcp"}
	  }
	}`
	entries, err := mcpservers.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, kind, problem string
	}{
		{"remote", "http", ""}, {"legacy", "http", ""}, {"typed", "http", ""}, {"wind", "http", ""},
		{"local", "stdio", ""}, {"nourl", "", "no url"}, {"both", "", "both"},
		{"weird", "", "unknown type"}, {"notobj", "", "not a server object"}, {"remote", "", "another entry"},
	}
	if len(entries) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(entries), len(want), entries)
	}
	for i, w := range want {
		e := entries[i]
		kind := ""
		switch {
		case e.HTTP != nil:
			kind = "http"
		case e.Stdio != nil:
			kind = "stdio"
		}
		if e.Name != w.name || kind != w.kind || !strings.Contains(e.Problem, w.problem) || (w.problem == "") != (e.Problem == "") {
			t.Errorf("entry %d = %q kind %q problem %q; want %q kind %q problem ~%q", i, e.Name, kind, e.Problem, w.name, w.kind, w.problem)
		}
	}
	if got := entries[1].HTTP.Transport; got != wire.TransportSSE {
		t.Errorf("legacy transport = %q, want sse", got)
	}
	if got := entries[2].HTTP; got.Transport != wire.TransportStreamable || got.Headers["Authorization"] != "Bearer s3cret" {
		t.Errorf("typed = %+v", got)
	}
	if got := entries[0].HTTP.Transport; got != "" {
		t.Errorf("an entry without a type has transport %q; want the relay's default", got)
	}
	if got := entries[3].HTTP.URL; got != "https://w.example/mcp" {
		t.Errorf("serverUrl read as %q", got)
	}
	if s := entries[4].Stdio; s.Command != "npx" || len(s.Args) != 2 || s.Env["A"] != "1" || s.Cwd != "/tmp" {
		t.Errorf("stdio entry = %+v", s)
	}
}

func TestParseReadsVSCodeLayouts(t *testing.T) {
	for _, doc := range []string{
		`{"servers": {"gh": {"type": "http", "url": "https://api.example.com/mcp"}}}`,
		`{"editor.fontSize": 12, "mcp": {"servers": {"gh": {"type": "http", "url": "https://api.example.com/mcp"}}}}`,
	} {
		entries, err := mcpservers.Parse([]byte(doc))
		if err != nil || len(entries) != 1 || entries[0].HTTP == nil || entries[0].Name != "gh" {
			t.Errorf("Parse(%s) = %+v, %v", doc, entries, err)
		}
	}
}

func TestParseRefusesDocumentsItCannotRead(t *testing.T) {
	for _, doc := range []string{
		``, `[]`, `{"other": {}}`, `{"mcpServers": []}`, `{"mcpServers": {"a": {"url": "x"}`,
		`{"mcpServers": {` + strings.Repeat(`"a": {},`, mcpservers.MaxEntries) + `"b": {}}}`,
		`{"mcpServers": {"a": {"url": "` + strings.Repeat("x", mcpservers.MaxDocumentBytes) + `"}}}`,
	} {
		if entries, err := mcpservers.Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%.60s) = %d entries, want an error", doc, len(entries))
		}
	}
}

func TestExportKeepsHeaderNamesAndNoSecret(t *testing.T) {
	servers := []wire.Server{
		{Name: "hosted", URL: "https://h.example/mcp?api_key=s3cret&region=eu&t=%E2%80%A2%E2%80%A2%E2%80%A2", Transport: wire.TransportStreamable, HeaderNames: []string{"X-Api-Key"}},
		{Name: "legacy", URL: "https://old.example/sse", Transport: wire.TransportSSE},
		{Name: "auto", URL: "https://a.example/mcp", Transport: wire.TransportAuto},
		{Name: "files", Transport: wire.TransportStdio, Configured: true},
	}
	b, err := mcpservers.Export(servers)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "•") {
		t.Fatalf("export holds a secret:\n%s", b)
	}
	var doc struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	h := doc.MCPServers["hosted"]
	if h.Type != "http" || h.URL != "https://h.example/mcp?region=eu" || h.Headers["X-Api-Key"] != mcpservers.SecretPlaceholder {
		t.Errorf("hosted = %+v", h)
	}
	if doc.MCPServers["legacy"].Type != "sse" || doc.MCPServers["auto"].Type != "" {
		t.Errorf("types: legacy %q auto %q", doc.MCPServers["legacy"].Type, doc.MCPServers["auto"].Type)
	}
	if _, ok := doc.MCPServers["files"]; ok {
		t.Error("an operator's stdio server was exported")
	}
	// What is exported reads back, and the placeholder reads as unset.
	entries, err := mcpservers.Parse(b)
	if err != nil || len(entries) != 3 {
		t.Fatalf("re-import: %+v, %v", entries, err)
	}
	for _, e := range entries {
		for _, v := range e.HTTP.Headers {
			if !mcpservers.UnsetHeader(v) {
				t.Errorf("%s: header value %q reads as set", e.Name, v)
			}
		}
	}
}
