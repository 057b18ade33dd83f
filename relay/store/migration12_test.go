package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// serverDataMigration is the migration that gave every per-server record a
// foreign key to its server and sealed the servers' secrets.
const serverDataMigration = 12

// openAtVersion creates a database in dir with the migrations before version
// applied, as a relay of that time left it.
func openAtVersion(t *testing.T, dir string, version int) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, dir+"/"+fileName+"?"+dsnParams().Encode())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i := range version - 1 {
		if _, err := db.Exec(migrations[i]); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, 0)`, i+1); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestServerDataMigrationKeepsEveryServersDataAndCascades(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	dir := t.TempDir()
	writeBeforeServerDataMigration(t, dir)

	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkMigratedServers(ctx, t, s)
	checkMigratedOAuth(ctx, t, s)
	checkMigratedPrefsAndSettings(ctx, t, s)

	// Removing the server is one statement that takes everything along.
	if err := s.DeleteServer(ctx, "host:ann", "a"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"oauth_clients", "oauth_tokens", "oauth_states", "server_client_prefs", "resource_subscriptions"} {
		var n int
		if err := s.db.QueryRow(`SELECT COUNT(*) FROM ` + table + ` WHERE server_id = 'a'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s keeps %d rows of the removed server", table, n)
		}
	}
}

// writeBeforeServerDataMigration leaves in dir the database of a relay from
// before serverDataMigration, holding servers of two users, OAuth clients,
// tokens and a pending authorization, prefs, settings and a subscription, of
// servers that exist and of one that no longer does.
func writeBeforeServerDataMigration(t *testing.T, dir string) {
	t.Helper()
	sealer, err := LoadSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	db := openAtVersion(t, dir, serverDataMigration)
	tokens, _ := json.Marshal(tokenSecrets{Access: "at-1", Refresh: "rt-1"})
	clientSecret := sealer.Seal([]byte("cs-1"), sealContext(sealClientSecret, "host:ann", "a", ClientDynamic))
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO servers VALUES ('host:ann', 'a', 'alpha', 'https://a.example/mcp', 'streamable', 1)`, nil},
		{`INSERT INTO servers VALUES ('host:ann', 'b', 'beta', 'http://127.0.0.1:9/sse', 'sse', 2)`, nil},
		{`INSERT INTO servers VALUES ('host:bob', 'k', 'keyed', 'https://k.example/mcp?api_key=plain-secret-1&x=1', 'streamable', 3)`, nil},
		{`INSERT INTO oauth_clients VALUES ('host:ann', 'a', 'dynamic', 'https://as.example', 'http://r', 'cid', ?, 'client_secret_basic', 3)`, []any{clientSecret}},
		{`INSERT INTO oauth_clients VALUES ('host:ann', 'gone', 'dynamic', '', '', 'cid2', NULL, 'none', 3)`, nil},
		{`INSERT INTO oauth_tokens VALUES ('host:ann', 'a', 'https://as.example', 'https://as.example/token', 'https://a.example/mcp', 'cid', 'dynamic', 'client_secret_basic', 'read write', ?, 0, 4)`,
			[]any{sealer.Seal(tokens, sealContext(sealTokens, "host:ann", "a", ""))}},
		{`INSERT INTO oauth_states (state_hash, user_id, server_id, redirect_uri, issuer, iss_required, token_endpoint, resource, client_id, client_source, auth_method, scopes, verifier, expires_at)
			VALUES (x'01', 'host:ann', 'a', 'http://r', '', 0, '', '', 'cid', 'dynamic', 'none', '', x'00', ?)`, []any{time.Now().Add(time.Hour).UnixMilli()}},
		{`INSERT INTO server_client_prefs VALUES ('host:ann', 'a', 1, 'debug')`, nil},
		{`INSERT INTO settings VALUES ('ask.modes:host:ann:a', '{"form":false,"url":true,"sampling":"off"}')`, nil},
		{`INSERT INTO settings VALUES ('elicitation.modes:host:ann:b', 'form')`, nil},
		{`INSERT INTO settings VALUES ('ask.modes:host:ann:gone', '{"form":true}')`, nil},
		{`INSERT INTO settings VALUES ('relay.other', 'kept')`, nil},
		{`INSERT INTO resource_subscriptions VALUES ('host:ann', 'a', 'file:///x', 5)`, nil},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	db.Close()
}

// checkMigratedServers checks that every user's servers came through the
// migration, a key in a URL among them.
func checkMigratedServers(ctx context.Context, t *testing.T, s *Store) {
	servers, err := s.Servers(ctx, "host:ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].URL != "https://a.example/mcp" || servers[1].Transport != "sse" || servers[0].Disconnected {
		t.Fatalf("servers after migration: %+v", servers)
	}
	// A key stored in a URL before secrets were sealed is sealed on open:
	// the url column shows it masked, and the whole URL comes back.
	keyed, err := s.Servers(ctx, "host:bob")
	if err != nil || len(keyed) != 1 || keyed[0].URL != "https://k.example/mcp?api_key=plain-secret-1&x=1" ||
		strings.Contains(keyed[0].DisplayURL, "plain-secret-1") || keyed[0].DisplayURL == "" {
		t.Fatalf("keyed server after migration: %+v %v", keyed, err)
	}
	var column string
	if err := s.db.QueryRowContext(ctx, `SELECT url FROM servers WHERE server_id = 'k'`).Scan(&column); err != nil || strings.Contains(column, "plain-secret-1") {
		t.Errorf("the url column still holds the key: %q %v", column, err)
	}
}

// checkMigratedOAuth checks that the OAuth token and client came through the
// migration, and that the client of a server that no longer exists did not.
func checkMigratedOAuth(ctx context.Context, t *testing.T, s *Store) {
	oauth := s.OAuth(s.Sealer())
	tok, ok, err := oauth.Token(ctx, "host:ann", "a")
	if err != nil || !ok || tok.AccessToken != "at-1" || tok.RefreshToken != "rt-1" || len(tok.Scopes) != 2 {
		t.Fatalf("token after migration: %+v %v %v", tok, ok, err)
	}
	c, ok, err := oauth.Client(ctx, "host:ann", "a", ClientDynamic)
	if err != nil || !ok || c.ClientSecret != "cs-1" {
		t.Fatalf("client after migration: %+v %v %v", c, ok, err)
	}
	if _, ok, _ := oauth.Client(ctx, "host:ann", "gone", ClientDynamic); ok {
		t.Error("the registration of a server that no longer exists survived")
	}
}

// checkMigratedPrefsAndSettings checks that the client prefs, the ask modes
// (old elicitation modes converted), the other settings and the
// subscriptions came through the migration.
func checkMigratedPrefsAndSettings(ctx context.Context, t *testing.T, s *Store) {
	prefs, err := s.ClientPrefs(ctx, "host:ann", "a")
	if err != nil || !prefs.RootsHidden || prefs.LogLevel != "debug" {
		t.Errorf("prefs after migration: %+v %v", prefs, err)
	}
	if m, _ := s.AskModes(ctx, "host:ann", "a"); m != `{"form":false,"url":true,"sampling":"off"}` {
		t.Errorf("ask modes of a = %q", m)
	}
	if m, _ := s.AskModes(ctx, "host:ann", "b"); m != `{"form":true,"url":false,"sampling":"ask"}` {
		t.Errorf("ask modes of b (from the elicitation modes) = %q", m)
	}
	for key, want := range map[string]bool{"ask.modes:host:ann:a": false, "elicitation.modes:host:ann:b": false, "relay.other": true} {
		if _, ok, _ := s.Setting(ctx, key); ok != want {
			t.Errorf("setting %s present = %v, want %v", key, ok, want)
		}
	}
	if subs, _ := s.Subscriptions(ctx, "host:ann", "a"); len(subs) != 1 {
		t.Errorf("subscriptions after migration: %v", subs)
	}
}
