package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// machineOf reads the machine access of user's server in dir.
func machineOf(t *testing.T, dir, user, server string) (store.OAuthMachine, bool) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sealer, err := store.LoadSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	mc, ok, err := st.OAuth(sealer).Machine(ctx, user, server)
	if err != nil {
		t.Fatal(err)
	}
	return mc, ok
}

func TestServersMachineAccessSealsTheSecretFromAFile(t *testing.T) {
	const secret = "cli-secret-CCCC-7777"
	dir := t.TempDir()
	id := lastWord(run(t, servers, "add", "--data", dir, "--user", "ann", "--name", "Reports", "--url", "https://mcp.example/mcp"))
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, servers, "machine-access", "--data", dir, "--user", "ann", "--id", id, "--client-id", "svc",
		"--client-secret-file", secretFile, "--scope", "mcp:read  mcp:write")
	if strings.Contains(out, secret) {
		t.Errorf("output %q shows the secret", out)
	}
	mc, ok := machineOf(t, dir, "ann", id)
	if !ok || mc.ClientID != "svc" || mc.Secret != secret || mc.AuthMethod != "client_secret_basic" || mc.Grant != store.MachineClientCredentials || mc.Scope != "mcp:read mcp:write" {
		t.Fatalf("machine access %+v, %v", mc, ok)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if raw, err := os.ReadFile(f); err == nil && bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the secret is in %s unsealed", filepath.Base(f))
		}
	}

	run(t, servers, "machine-access", "--data", dir, "--user", "ann", "--id", id, "--clear")
	if _, ok := machineOf(t, dir, "ann", id); ok {
		t.Error("machine access still there after --clear")
	}
}

func TestServersMachineAccessRefusesWhatCannotWork(t *testing.T) {
	dir := t.TempDir()
	id := lastWord(run(t, servers, "add", "--data", dir, "--user", "ann", "--name", "Reports", "--url", "https://mcp.example/mcp"))
	notAKey := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(notAKey, []byte("not-a-key-KKKK"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"unknown server":     {"--id", "nope", "--client-id", "svc", "--private-key-file", notAKey},
		"no secret nor key":  {"--id", id, "--client-id", "svc"},
		"a key that is none": {"--id", id, "--client-id", "svc", "--private-key-file", notAKey},
		"no client id":       {"--id", id, "--private-key-file", notAKey},
	} {
		var out bytes.Buffer
		err := cli.Servers(append([]string{"machine-access", "--data", dir, "--user", "ann"}, args...), &out)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "KKKK") {
			t.Errorf("%s: error %q quotes the file", name, err)
		}
	}
	if _, ok := machineOf(t, dir, "ann", id); ok {
		t.Error("a refused command stored machine access")
	}
}
