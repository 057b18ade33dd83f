package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestImportServersAddsHTTPEntriesAndReportsTheRest(t *testing.T) {
	f := newFixture(t, t.TempDir())
	ctx := context.Background()
	s := f.m.Session("ann")
	if _, err := s.Add(ctx, wire.AddServerArgs{Name: "taken", URL: "http://127.0.0.1:9000/mcp"}); err != nil {
		t.Fatal(err)
	}
	doc := `{"mcpServers": {
	  "hosted": {"type": "http", "url": "http://127.0.0.1:9001/mcp", "headers": {"X-Api-Key": "s3cret", "X-Other": "` + mcpservers.SecretPlaceholder + `"}},
	  "legacy": {"type": "sse", "url": "http://127.0.0.1:9002/sse"},
	  "local":  {"command": "npx", "args": ["server"]},
	  "badurl": {"url": "ftp://127.0.0.1/mcp"},
	  "taken":  {"url": "http://127.0.0.1:9999/mcp"},
	  "hosted": {"url": "http://127.0.0.1:9003/mcp"}
	}}`
	res, err := s.ImportServers(ctx, wire.ImportServersArgs{Document: json.RawMessage(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 2 || res.Added[0].Name != "hosted" || res.Added[1].Name != "legacy" || res.Added[0].Existing {
		t.Fatalf("added = %+v", res.Added)
	}
	if !strings.Contains(res.Added[0].Note, "X-Other") || strings.Contains(res.Added[0].Note, "X-Api-Key") {
		t.Errorf("note = %q: want the header without a value named, and only it", res.Added[0].Note)
	}
	wantSkipped := map[string]string{"local": "stdio", "badurl": "", "taken": "already exists", "hosted": "another entry"}
	if len(res.Skipped) != len(wantSkipped) {
		t.Fatalf("skipped = %+v", res.Skipped)
	}
	for _, sk := range res.Skipped {
		want, ok := wantSkipped[sk.Name]
		if !ok || sk.Reason == "" || !strings.Contains(sk.Reason, want) {
			t.Errorf("skipped %q: %q, want a reason with %q", sk.Name, sk.Reason, want)
		}
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), "s3cret") {
		t.Errorf("the report holds a header's value: %s", b)
	}
	regs, err := f.store.Servers(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range regs {
		got[r.Name] = r.Transport
	}
	if len(got) != 3 || got["legacy"] != string(wire.TransportSSE) || got["hosted"] != string(wire.TransportStreamable) {
		t.Errorf("stored = %v", got)
	}

	again, err := s.ImportServers(ctx, wire.ImportServersArgs{Document: json.RawMessage(doc)})
	if err != nil || len(again.Added) != 2 || !again.Added[0].Existing || !again.Added[1].Existing {
		t.Errorf("a second import = %+v, %v; want both existing", again.Added, err)
	}
}

func TestImportServersRefusesAnUnreadableFileWhole(t *testing.T) {
	f := newFixture(t, t.TempDir())
	_, err := f.m.Session("ann").ImportServers(context.Background(), wire.ImportServersArgs{Document: json.RawMessage(`{"servers": 3}`)})
	if we := asWireError(err); err == nil || we.Code != wire.CodeBadRequest {
		t.Fatalf("err = %v", err)
	}
}
