package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations are applied in order; migration i brings the schema to version
// i+1. Append only: never edit or reorder an entry that has shipped.
var migrations = []string{
	// 1: server registrations, per user.
	`CREATE TABLE servers (
		user_id    TEXT    NOT NULL,
		server_id  TEXT    NOT NULL,
		name       TEXT    NOT NULL,
		url        TEXT    NOT NULL,
		transport  TEXT    NOT NULL,
		created_at INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id),
		UNIQUE (user_id, name)
	)`,
	// 2: one-time login codes, stored as SHA-256 hashes.
	`CREATE TABLE login_codes (
		code_hash  BLOB    NOT NULL PRIMARY KEY,
		user_id    TEXT    NOT NULL,
		expires_at INTEGER NOT NULL, -- Unix milliseconds
		used_at    INTEGER           -- Unix milliseconds, NULL until used
	);
	CREATE INDEX login_codes_expires_at ON login_codes (expires_at)`,
	// 3: relay settings.
	`CREATE TABLE settings (
		key   TEXT NOT NULL PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	// 4: OAuth client registrations, tokens and pending authorizations, per
	// user and server. Secrets are sealed (see seal.go); states are stored as
	// SHA-256 hashes.
	`CREATE TABLE oauth_clients (
		user_id       TEXT    NOT NULL,
		server_id     TEXT    NOT NULL,
		source        TEXT    NOT NULL, -- manual or dynamic
		issuer        TEXT    NOT NULL, -- the authorization server; empty for any
		redirect_uri  TEXT    NOT NULL, -- the redirect URI registered, for dynamic ones
		client_id     TEXT    NOT NULL,
		client_secret BLOB,             -- sealed; NULL for a public client
		auth_method   TEXT    NOT NULL, -- token_endpoint_auth_method
		created_at    INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id, source)
	);
	CREATE TABLE oauth_tokens (
		user_id        TEXT    NOT NULL,
		server_id      TEXT    NOT NULL,
		issuer         TEXT    NOT NULL,
		token_endpoint TEXT    NOT NULL,
		resource       TEXT    NOT NULL,
		client_id      TEXT    NOT NULL,
		client_source  TEXT    NOT NULL,
		auth_method    TEXT    NOT NULL,
		scopes         TEXT    NOT NULL, -- space-separated
		secrets        BLOB    NOT NULL, -- sealed access and refresh tokens
		expires_at     INTEGER NOT NULL, -- Unix milliseconds; 0 when the token does not say
		updated_at     INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id)
	);
	CREATE TABLE oauth_states (
		state_hash     BLOB    NOT NULL PRIMARY KEY,
		user_id        TEXT    NOT NULL,
		server_id      TEXT    NOT NULL,
		redirect_uri   TEXT    NOT NULL,
		issuer         TEXT    NOT NULL,
		iss_required   INTEGER NOT NULL, -- 1 when the callback must carry iss (RFC 9207)
		token_endpoint TEXT    NOT NULL,
		resource       TEXT    NOT NULL,
		client_id      TEXT    NOT NULL,
		client_source  TEXT    NOT NULL,
		auth_method    TEXT    NOT NULL,
		scopes         TEXT    NOT NULL,
		verifier       BLOB    NOT NULL, -- sealed PKCE code verifier
		expires_at     INTEGER NOT NULL, -- Unix milliseconds
		used_at        INTEGER           -- Unix milliseconds, NULL until used
	);
	CREATE INDEX oauth_states_server ON oauth_states (user_id, server_id);
	CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at)`,
	// 5: a person's roots, in their order; per server, whether the roots are
	// hidden from it and the log level asked of it.
	`CREATE TABLE user_roots (
		user_id  TEXT    NOT NULL,
		position INTEGER NOT NULL,
		uri      TEXT    NOT NULL,
		name     TEXT    NOT NULL,
		PRIMARY KEY (user_id, position)
	);
	CREATE TABLE server_client_prefs (
		user_id       TEXT    NOT NULL,
		server_id     TEXT    NOT NULL,
		roots_hidden  INTEGER NOT NULL DEFAULT 0, -- 1: the server sees no roots
		log_level     TEXT    NOT NULL DEFAULT '', -- empty: none asked for
		PRIMARY KEY (user_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	)`,
	// 6: agent keys (stored as SHA-256 hashes), the servers each may reach,
	// and the log of agent calls (bounded per user, see agentcalls.go).
	`CREATE TABLE agent_keys (
		key_id       TEXT    NOT NULL PRIMARY KEY,
		user_id      TEXT    NOT NULL,
		name         TEXT    NOT NULL,
		secret_hash  BLOB    NOT NULL, -- SHA-256 of the whole key
		all_servers  INTEGER NOT NULL, -- 1: every server of the user, now and later
		tools        TEXT,             -- JSON array of allowed tool names; NULL for all
		expires_at   INTEGER NOT NULL, -- Unix milliseconds; 0 for never
		created_at   INTEGER NOT NULL, -- Unix milliseconds
		last_used_at INTEGER NOT NULL, -- Unix milliseconds; 0 for never
		revoked_at   INTEGER NOT NULL  -- Unix milliseconds; 0 while valid
	);
	CREATE INDEX agent_keys_user ON agent_keys (user_id, created_at);
	CREATE TABLE agent_key_servers (
		key_id    TEXT NOT NULL REFERENCES agent_keys (key_id) ON DELETE CASCADE,
		user_id   TEXT NOT NULL,
		server_id TEXT NOT NULL,
		PRIMARY KEY (key_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE INDEX agent_key_servers_server ON agent_key_servers (user_id, server_id);
	CREATE TABLE agent_calls (
		call_id     INTEGER PRIMARY KEY AUTOINCREMENT,
		user_id     TEXT    NOT NULL,
		agent       TEXT    NOT NULL,
		key_id      TEXT    NOT NULL,
		server_id   TEXT    NOT NULL,  -- kept after the server is removed: this is a log
		tool        TEXT    NOT NULL,
		started_at  INTEGER NOT NULL,  -- Unix milliseconds
		duration_ms INTEGER NOT NULL,
		outcome     TEXT    NOT NULL,
		asked       INTEGER NOT NULL   -- 1 when a person was asked during the call
	);
	CREATE INDEX agent_calls_user ON agent_calls (user_id, call_id)`,
	// 7: resource subscriptions, per server; they go with the server.
	`CREATE TABLE resource_subscriptions (
		user_id    TEXT    NOT NULL,
		server_id  TEXT    NOT NULL,
		uri        TEXT    NOT NULL,
		created_at INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id, uri),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	)`,
	// 8: the MCP tasks of running tool calls, so that a relay restart
	// resumes following them.
	`CREATE TABLE call_tasks (
		user_id    TEXT    NOT NULL,
		server_id  TEXT    NOT NULL,
		call_id    TEXT    NOT NULL,
		task_id    TEXT    NOT NULL,
		tool       TEXT    NOT NULL,
		started_at INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, call_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	)`,
	// 9: whether an agent key may have the person hand a sampling request
	// raised during its call to the agent's own client.
	`ALTER TABLE agent_keys ADD COLUMN forward_sampling INTEGER NOT NULL DEFAULT 0`,
	// 10: machine access to a server: the credentials with which the relay
	// obtains its tokens without a person (OAuth client credentials, or
	// cross-app access). The secret is sealed; it goes with the server.
	`CREATE TABLE oauth_machine_clients (
		user_id     TEXT    NOT NULL,
		server_id   TEXT    NOT NULL,
		grant_type  TEXT    NOT NULL, -- client_credentials or cross_app
		client_id   TEXT    NOT NULL,
		auth_method TEXT    NOT NULL, -- client_secret_basic, client_secret_post or private_key_jwt
		secret      BLOB    NOT NULL, -- sealed client secret or PEM private key
		signing_alg TEXT    NOT NULL, -- JWS algorithm of private_key_jwt; empty: from the key
		scope       TEXT    NOT NULL, -- space-separated; empty: what the server asks for
		created_at  INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	)`,
	// 11: the relay as an OAuth authorization server for its agent
	// endpoint (see agentgrants.go): dynamically registered clients, the
	// grants people gave, the servers each reaches, and its tokens, stored
	// as SHA-256 hashes.
	`CREATE TABLE agent_oauth_clients (
		client_id     TEXT    NOT NULL PRIMARY KEY,
		name          TEXT    NOT NULL,
		redirect_uris TEXT    NOT NULL, -- JSON array
		created_at    INTEGER NOT NULL, -- Unix milliseconds
		expires_at    INTEGER NOT NULL  -- Unix milliseconds; 0 once a grant uses it
	);
	CREATE TABLE agent_grants (
		grant_id     TEXT    NOT NULL PRIMARY KEY,
		user_id      TEXT    NOT NULL,
		client_id    TEXT    NOT NULL,
		client_name  TEXT    NOT NULL,
		client_host  TEXT    NOT NULL,
		redirect_uri TEXT    NOT NULL,
		resource     TEXT    NOT NULL, -- the endpoint URL its tokens are bound to
		all_servers  INTEGER NOT NULL,
		created_at   INTEGER NOT NULL, -- Unix milliseconds
		last_used_at INTEGER NOT NULL, -- Unix milliseconds; 0 for never
		revoked_at   INTEGER NOT NULL  -- Unix milliseconds; 0 while valid
	);
	CREATE INDEX agent_grants_user ON agent_grants (user_id, created_at);
	CREATE TABLE agent_grant_servers (
		grant_id  TEXT NOT NULL REFERENCES agent_grants (grant_id) ON DELETE CASCADE,
		user_id   TEXT NOT NULL,
		server_id TEXT NOT NULL,
		PRIMARY KEY (grant_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE agent_tokens (
		token_hash BLOB    NOT NULL PRIMARY KEY, -- SHA-256 of the token
		grant_id   TEXT    NOT NULL REFERENCES agent_grants (grant_id) ON DELETE CASCADE,
		kind       TEXT    NOT NULL, -- access or refresh
		expires_at INTEGER NOT NULL, -- Unix milliseconds
		used_at    INTEGER NOT NULL  -- a refresh token: when it was rotated; 0 while fresh
	);
	CREATE INDEX agent_tokens_grant ON agent_tokens (grant_id)`,
	// 12: one place for a server's data. The OAuth tables get a foreign key
	// to the server (recreated, rows of servers that no longer exist are
	// dropped); a server's custom headers and the secret query values of
	// its URL are sealed in secrets (url keeps the masked URL), with its
	// header names, whether the person keeps it disconnected and its retry
	// settings; ask modes leave the generic settings table for the
	// server's client preferences.
	`CREATE TABLE oauth_clients_v10 (
		user_id       TEXT    NOT NULL,
		server_id     TEXT    NOT NULL,
		source        TEXT    NOT NULL,
		issuer        TEXT    NOT NULL,
		redirect_uri  TEXT    NOT NULL,
		client_id     TEXT    NOT NULL,
		client_secret BLOB,
		auth_method   TEXT    NOT NULL,
		created_at    INTEGER NOT NULL,
		PRIMARY KEY (user_id, server_id, source),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	INSERT INTO oauth_clients_v10 SELECT c.user_id, c.server_id, c.source, c.issuer, c.redirect_uri, c.client_id,
		c.client_secret, c.auth_method, c.created_at
		FROM oauth_clients c JOIN servers s ON s.user_id = c.user_id AND s.server_id = c.server_id;
	DROP TABLE oauth_clients;
	ALTER TABLE oauth_clients_v10 RENAME TO oauth_clients;
	CREATE TABLE oauth_tokens_v10 (
		user_id        TEXT    NOT NULL,
		server_id      TEXT    NOT NULL,
		issuer         TEXT    NOT NULL,
		token_endpoint TEXT    NOT NULL,
		resource       TEXT    NOT NULL,
		client_id      TEXT    NOT NULL,
		client_source  TEXT    NOT NULL,
		auth_method    TEXT    NOT NULL,
		scopes         TEXT    NOT NULL,
		secrets        BLOB    NOT NULL,
		expires_at     INTEGER NOT NULL,
		updated_at     INTEGER NOT NULL,
		PRIMARY KEY (user_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	INSERT INTO oauth_tokens_v10 SELECT t.user_id, t.server_id, t.issuer, t.token_endpoint, t.resource, t.client_id,
		t.client_source, t.auth_method, t.scopes, t.secrets, t.expires_at, t.updated_at
		FROM oauth_tokens t JOIN servers s ON s.user_id = t.user_id AND s.server_id = t.server_id;
	DROP TABLE oauth_tokens;
	ALTER TABLE oauth_tokens_v10 RENAME TO oauth_tokens;
	CREATE TABLE oauth_states_v10 (
		state_hash     BLOB    NOT NULL PRIMARY KEY,
		user_id        TEXT    NOT NULL,
		server_id      TEXT    NOT NULL,
		redirect_uri   TEXT    NOT NULL,
		issuer         TEXT    NOT NULL,
		iss_required   INTEGER NOT NULL,
		token_endpoint TEXT    NOT NULL,
		resource       TEXT    NOT NULL,
		client_id      TEXT    NOT NULL,
		client_source  TEXT    NOT NULL,
		auth_method    TEXT    NOT NULL,
		scopes         TEXT    NOT NULL,
		verifier       BLOB    NOT NULL,
		expires_at     INTEGER NOT NULL,
		used_at        INTEGER,
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	INSERT INTO oauth_states_v10 SELECT o.state_hash, o.user_id, o.server_id, o.redirect_uri, o.issuer, o.iss_required,
		o.token_endpoint, o.resource, o.client_id, o.client_source, o.auth_method, o.scopes, o.verifier, o.expires_at, o.used_at
		FROM oauth_states o JOIN servers s ON s.user_id = o.user_id AND s.server_id = o.server_id;
	DROP TABLE oauth_states;
	ALTER TABLE oauth_states_v10 RENAME TO oauth_states;
	CREATE INDEX oauth_states_server ON oauth_states (user_id, server_id);
	CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at);
	ALTER TABLE servers ADD COLUMN secrets BLOB; -- sealed JSON: the whole URL and the header values; NULL without
	ALTER TABLE servers ADD COLUMN header_names TEXT NOT NULL DEFAULT ''; -- newline-separated
	ALTER TABLE servers ADD COLUMN disconnected INTEGER NOT NULL DEFAULT 0; -- 1: the person keeps it disconnected
	ALTER TABLE servers ADD COLUMN retry_attempts INTEGER NOT NULL DEFAULT 0; -- 0: the relay's default
	ALTER TABLE servers ADD COLUMN retry_base_ms INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE servers ADD COLUMN retry_max_ms INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE server_client_prefs ADD COLUMN ask_modes TEXT NOT NULL DEFAULT ''; -- JSON wire.AskModes; empty: defaults
	INSERT INTO server_client_prefs (user_id, server_id, ask_modes)
		SELECT s.user_id, s.server_id, st.value FROM settings st
		JOIN servers s ON st.key = 'ask.modes:' || s.user_id || ':' || s.server_id WHERE true
		ON CONFLICT (user_id, server_id) DO UPDATE SET ask_modes = excluded.ask_modes;
	INSERT INTO server_client_prefs (user_id, server_id, ask_modes)
		SELECT s.user_id, s.server_id, json_object(
			'form', json(CASE WHEN instr(',' || st.value || ',', ',form,') > 0 THEN 'true' ELSE 'false' END),
			'url', json(CASE WHEN instr(',' || st.value || ',', ',url,') > 0 THEN 'true' ELSE 'false' END),
			'sampling', 'ask') FROM settings st
		JOIN servers s ON st.key = 'elicitation.modes:' || s.user_id || ':' || s.server_id WHERE true
		ON CONFLICT (user_id, server_id) DO UPDATE SET ask_modes = excluded.ask_modes WHERE server_client_prefs.ask_modes = '';
	DELETE FROM settings WHERE key LIKE 'ask.modes:%' OR key LIKE 'elicitation.modes:%'`,
	// 13: a change marker per user of the servers table, kept by triggers
	// whatever writes it (this relay, or the command line on the same
	// file): seq is one more than the latest mark at each change, so the
	// users whose servers changed since a mark are read through the index.
	// (No upsert in the triggers: an outer upsert's conflict handling would
	// override theirs.) A later migration that recreates servers must
	// recreate the triggers.
	`CREATE TABLE server_marks (
		user_id TEXT    NOT NULL PRIMARY KEY,
		seq     INTEGER NOT NULL
	);
	CREATE INDEX server_marks_seq ON server_marks (seq);
	CREATE TRIGGER servers_mark_insert AFTER INSERT ON servers BEGIN
		UPDATE server_marks SET seq = (SELECT MAX(seq) + 1 FROM server_marks) WHERE user_id = NEW.user_id;
		INSERT INTO server_marks (user_id, seq)
			SELECT NEW.user_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM server_marks)
			WHERE NOT EXISTS (SELECT 1 FROM server_marks WHERE user_id = NEW.user_id);
	END;
	CREATE TRIGGER servers_mark_update AFTER UPDATE ON servers BEGIN
		UPDATE server_marks SET seq = (SELECT MAX(seq) + 1 FROM server_marks) WHERE user_id = NEW.user_id;
		INSERT INTO server_marks (user_id, seq)
			SELECT NEW.user_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM server_marks)
			WHERE NOT EXISTS (SELECT 1 FROM server_marks WHERE user_id = NEW.user_id);
	END;
	CREATE TRIGGER servers_mark_delete AFTER DELETE ON servers BEGIN
		UPDATE server_marks SET seq = (SELECT MAX(seq) + 1 FROM server_marks) WHERE user_id = OLD.user_id;
		INSERT INTO server_marks (user_id, seq)
			SELECT OLD.user_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM server_marks)
			WHERE NOT EXISTS (SELECT 1 FROM server_marks WHERE user_id = OLD.user_id);
	END`,
	// 14: the grants' servers by server, so that removing a server finds
	// the rows its foreign key cascades to without reading them all.
	`CREATE INDEX agent_grant_servers_server ON agent_grant_servers (user_id, server_id)`,
	// 15: the chat. A person's conversations and their turns (the turns go
	// with their conversation), the person's own keys for the configured
	// models (sealed), and the person's approval policy per tool of a
	// server (they go with the server).
	`CREATE TABLE chats (
		user_id    TEXT    NOT NULL,
		chat_id    TEXT    NOT NULL,
		title      TEXT    NOT NULL,
		model      TEXT    NOT NULL,
		group_id   TEXT    NOT NULL, -- the compare group; empty for none
		body       TEXT    NOT NULL, -- JSON: the rest of the summary (servers, tools, always, turns)
		created_at INTEGER NOT NULL, -- Unix milliseconds
		updated_at INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, chat_id)
	);
	CREATE INDEX chats_updated ON chats (user_id, updated_at);
	CREATE TABLE chat_turns (
		user_id     TEXT    NOT NULL,
		chat_id     TEXT    NOT NULL,
		turn_id     TEXT    NOT NULL,
		n           INTEGER NOT NULL, -- its place in the conversation, from 0
		status      TEXT    NOT NULL, -- as in body
		body        TEXT    NOT NULL, -- JSON wire.ChatTurn
		search_text TEXT    NOT NULL, -- lowercased message, attachment names and URIs, answer text
		started_at  INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, chat_id, turn_id),
		FOREIGN KEY (user_id, chat_id) REFERENCES chats (user_id, chat_id) ON DELETE CASCADE
	);
	CREATE INDEX chat_turns_n ON chat_turns (user_id, chat_id, n);
	CREATE INDEX chat_turns_running ON chat_turns (status) WHERE status = 'running';
	CREATE TABLE model_keys (
		user_id    TEXT    NOT NULL,
		model      TEXT    NOT NULL, -- the name of a configured model
		key        BLOB    NOT NULL, -- sealed
		created_at INTEGER NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, model)
	);
	CREATE TABLE tool_policies (
		user_id   TEXT NOT NULL,
		server_id TEXT NOT NULL,
		tool      TEXT NOT NULL,
		policy    TEXT NOT NULL CHECK (policy IN ('run', 'ask', 'never')),
		PRIMARY KEY (user_id, server_id, tool),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	)`,
	// 16: code mode. An agent key's and an OAuth grant's tool mode (its
	// tools one by one, code mode's search and execute, or both); in the log
	// of agent calls, the program an execute ran (cut) and whether a call
	// was made by one.
	`ALTER TABLE agent_keys ADD COLUMN tool_mode TEXT NOT NULL DEFAULT 'tools';
	ALTER TABLE agent_grants ADD COLUMN tool_mode TEXT NOT NULL DEFAULT 'tools';
	ALTER TABLE agent_calls ADD COLUMN program TEXT NOT NULL DEFAULT '';
	ALTER TABLE agent_calls ADD COLUMN by_code INTEGER NOT NULL DEFAULT 0`,
	// 17: sign-in with OpenID Connect. The tokens the identity provider
	// issued to a user at sign-in (ID token and refresh token, sealed), for
	// cross-app access.
	`CREATE TABLE identity_tokens (
		user_id    TEXT    NOT NULL PRIMARY KEY,
		issuer     TEXT    NOT NULL,
		secrets    BLOB    NOT NULL, -- sealed
		expires_at INTEGER NOT NULL, -- Unix milliseconds of the ID token's expiry
		updated_at INTEGER NOT NULL  -- Unix milliseconds
	)`,
	// 18: agents' authorizations in flight (relay/agentauth), so that any
	// relay on the store serves each step: the request, kept by the hash
	// of its id until the person answers, then by the hash of its code
	// until the code is spent (and a while after, to catch its reuse).
	`CREATE TABLE agent_authorizations (
		request_hash BLOB    NOT NULL PRIMARY KEY, -- SHA-256 of the request id
		code_hash    BLOB    UNIQUE,   -- SHA-256 of its code; NULL while pending
		user_id      TEXT    NOT NULL, -- who approved it; '' while pending
		body         TEXT    NOT NULL, -- JSON: the request, then with what was approved
		expires_at   INTEGER NOT NULL, -- Unix milliseconds: the request's, then the code's
		spent_at     INTEGER NOT NULL, -- Unix milliseconds; 0 until its code is spent
		grant_id     TEXT    NOT NULL, -- the grant its code created; '' until then
		reused       INTEGER NOT NULL  -- 1 once its code came again
	);
	CREATE INDEX agent_authorizations_expires_at ON agent_authorizations (expires_at)`,
}

// migrate creates schema_migrations if needed and applies every migration
// of the store's engine newer than the recorded version, each in its own
// transaction with the row of each version it brings. The version is read
// inside the transaction, which holds the engine's write lock, so two
// processes opening the same database cannot apply a migration twice.
func (s *Store) migrate(ctx context.Context) error {
	e := s.engine
	latest := e.latest()
	for {
		done := false
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, e.schemaMigrations); err != nil {
				return fmt.Errorf("create schema_migrations: %w", err)
			}
			var version int
			row := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`)
			if err := row.Scan(&version); err != nil {
				return fmt.Errorf("read schema version: %w", err)
			}
			if version > latest {
				return fmt.Errorf("schema version %d is newer than this relay knows (%d)", version, latest)
			}
			if version == latest {
				done = true
				return nil
			}
			step := 0 // the migration that applies next, and the version it brings
			if version > 0 {
				step = version - e.base + 1
			}
			if step < 0 {
				return fmt.Errorf("schema version %d predates what this relay can upgrade (%d)", version, e.base)
			}
			next := e.base + step
			if _, err := tx.ExecContext(ctx, e.migrations[step]); err != nil {
				return fmt.Errorf("apply migration %d: %w", next, err)
			}
			const record = `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`
			for v := version + 1; v <= next; v++ {
				if _, err := tx.ExecContext(ctx, record, v, time.Now().UnixMilli()); err != nil {
					return fmt.Errorf("record migration %d: %w", v, err)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if done {
			return nil
		}
	}
}
