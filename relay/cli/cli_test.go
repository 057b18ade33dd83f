package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// run runs a command and returns its output, failing the test on error.
func run(t *testing.T, cmd func([]string, *bytes.Buffer) error, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := cmd(args, &out); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

func servers(args []string, out *bytes.Buffer) error  { return cli.Servers(args, out) }
func agentKey(args []string, out *bytes.Buffer) error { return cli.AgentKey(args, out) }

// lastWord is the last whitespace-separated word of out.
func lastWord(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

func TestServersAddListsAndKeepsOneRegistration(t *testing.T) {
	dir := t.TempDir()
	out := run(t, servers, "add", "--data", dir, "--user", "ann", "--name", "Files", "--url", "http://127.0.0.1:9000/mcp")
	id := lastWord(out)
	again := run(t, servers, "add", "--data", dir, "--user", "ann", "--name", "Files", "--url", "http://127.0.0.1:9000/mcp")
	if lastWord(again) != id {
		t.Errorf("adding the same server again gave %q, want the existing id %s", again, id)
	}
	var errOut bytes.Buffer
	if err := cli.Servers([]string{"add", "--data", dir, "--user", "ann", "--name", "Files", "--url", "http://127.0.0.1:9001/mcp"}, &errOut); err == nil {
		t.Error("the same name with another URL was accepted")
	}
	if err := cli.Servers([]string{"add", "--data", dir, "--user", "ann", "--name", "Bad", "--url", "ftp://x"}, &errOut); err == nil {
		t.Error("an ftp URL was accepted")
	}
	list := run(t, servers, "list", "--data", dir, "--user", "ann")
	if !strings.Contains(list, id) || !strings.Contains(list, "Files") || strings.Count(list, "\n") != 2 {
		t.Errorf("list = %q, want a header and Files (%s)", list, id)
	}
	if bob := run(t, servers, "list", "--data", dir, "--user", "bob"); strings.Contains(bob, id) {
		t.Errorf("bob's list shows ann's server: %q", bob)
	}
}

func TestAgentKeyCreatePrintsAWorkingKeyLast(t *testing.T) {
	dir := t.TempDir()
	srv := lastWord(run(t, servers, "add", "--data", dir, "--user", "ann", "--name", "Files", "--url", "http://127.0.0.1:9000/mcp"))
	out := run(t, agentKey, "create", "--data", dir, "--user", "ann", "--name", "laptop", "--servers", srv, "--ttl", "1h")
	key := lastWord(out)
	if !strings.HasPrefix(key, store.AgentKeyPrefix) {
		t.Fatalf("last word %q is not a key; output:\n%s", key, out)
	}

	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := (&agentkeys.Keys{Store: st}).Authenticate(ctx, key)
	if err != nil {
		t.Fatalf("the printed key does not authenticate: %v", err)
	}
	if g.User != "ann" || g.Agent != "laptop" || len(g.Servers) != 1 || g.Servers[0] != srv || g.Expires.IsZero() {
		t.Errorf("grant = %+v", g)
	}

	list := run(t, agentKey, "list", "--data", dir, "--user", "ann")
	if !strings.Contains(list, g.KeyID) || !strings.Contains(list, "active") || strings.Contains(list, key) {
		t.Errorf("list = %q: want the key's id as active and never the key", list)
	}
	run(t, agentKey, "revoke", "--data", dir, "--user", "ann", "--id", g.KeyID)
	if _, err := (&agentkeys.Keys{Store: st}).Authenticate(ctx, key); err == nil {
		t.Error("a revoked key still authenticates")
	}
	if list := run(t, agentKey, "list", "--data", dir, "--user", "ann"); !strings.Contains(list, "revoked") {
		t.Errorf("list after revoke = %q", list)
	}
	var errOut bytes.Buffer
	if err := cli.AgentKey([]string{"create", "--data", dir, "--user", "ann", "--name", "x", "--servers", "nope"}, &errOut); err == nil {
		t.Error("a key for a server ann does not have was created")
	}
}

func TestServersImportTakesHTTPEntriesAndSaysWhyNotTheRest(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	const config = `{
	  "mcpServers": {
	    "remote": {"url": "https://mcp.example.com/mcp"},
	    "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
	    "typed":  {"transport": "streamable-http", "url": "http://127.0.0.1:7000/mcp", "headers": {"Authorization": "Bearer s3cret", "X-Team": ""}},
	    "local":  {"command": "npx", "args": ["-y", "some-server"]},
	    "nourl":  {"type": "http"},
	    "badurl": {"url": "javascript:alert(1)"},
	    "weird":  {"type": "carrier-pigeon", "url": "https://x.example/mcp"},
	    "notobj": 42
	  }
	}`
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, servers, "import", "--data", dir, "--user", "ann", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []struct{ prefix, name string }{
		{"added", "remote"}, {"added", "legacy"}, {"added", "typed"},
		{"not taken", "local"}, {"not taken", "nourl"}, {"not taken", "badurl"}, {"not taken", "weird"}, {"not taken", "notobj"},
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("output has %d lines, want %d:\n%s", len(lines), len(want)+1, out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w.prefix) || !strings.Contains(lines[i], `"`+w.name+`"`) {
			t.Errorf("line %d = %q, want %s %q", i, lines[i], w.prefix, w.name)
		}
	}
	if !strings.Contains(lines[3], "stdio") || !strings.Contains(lines[2], "header X-Team has no value") {
		t.Errorf("reasons missing: %q / %q", lines[3], lines[2])
	}
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	regs, err := st.Servers(context.Background(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		if r.Name == "typed" && (r.Headers["Authorization"] != "Bearer s3cret" || len(r.Headers) != 1) {
			t.Errorf("typed's stored headers %v, want its Authorization and nothing of X-Team", r.HeaderNames())
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Error("the output repeats a header's secret")
	}
	if lines[len(lines)-1] != "3 added, 0 already registered, 5 not taken" {
		t.Errorf("summary = %q", lines[len(lines)-1])
	}
	again := run(t, servers, "import", "--data", dir, "--user", "ann", file)
	if !strings.Contains(again, "0 added, 3 already registered, 5 not taken") {
		t.Errorf("importing twice: %q", again)
	}
	list := run(t, servers, "list", "--data", dir, "--user", "ann")
	if !strings.Contains(list, "sse") || !strings.Contains(list, "https://old.example.com/sse") {
		t.Errorf("the SSE entry is not registered as sse: %q", list)
	}
}
