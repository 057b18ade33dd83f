package store

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// chatMigration is the migration that added the chat's tables.
const chatMigration = 15

func TestChatMigrationAppliesOnTheVersionBefore(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	dir := t.TempDir()
	db := openAtVersion(t, dir, chatMigration)
	for _, q := range []string{
		`INSERT INTO servers (user_id, server_id, name, url, transport, created_at) VALUES ('ann', 's1', 'one', 'https://one.example/mcp', 'auto', 1)`,
		`INSERT INTO server_client_prefs (user_id, server_id, roots_hidden) VALUES ('ann', 's1', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var version int
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < chatMigration {
		t.Fatalf("schema version %d after Open, want at least %d", version, chatMigration)
	}
	if srv, err := s.Servers(ctx, "ann"); err != nil || len(srv) != 1 || srv[0].Name != "one" {
		t.Fatalf("servers after the migration = %+v, %v", srv, err)
	}
	if p, err := s.ClientPrefs(ctx, "ann", "s1"); err != nil || !p.RootsHidden {
		t.Errorf("prefs after the migration = %+v, %v", p, err)
	}

	// The new tables work with what was there.
	if err := s.AddChat(ctx, "ann", wire.Chat{ID: "c1", Title: "t", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTurn(ctx, "ann", wire.ChatTurn{ID: "t0", Chat: "c1", Status: wire.TurnRunning}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetToolPolicy(ctx, "ann", wire.ToolPolicyEntry{ToolRef: wire.ToolRef{Server: "s1", Tool: "x"}, Policy: wire.PolicyAsk}); err != nil {
		t.Fatal(err)
	}
	if err := s.ModelKeys(s.Sealer()).Set(ctx, "ann", "m", "k"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteServer(ctx, "ann", "s1"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ToolPolicies(ctx, "ann"); err != nil || len(got) != 0 {
		t.Errorf("policies after their server was removed = %v, %v", got, err)
	}
	if n, err := s.InterruptTurns(ctx); err != nil || n != 1 {
		t.Errorf("InterruptTurns = %d, %v; want 1", n, err)
	}
}
