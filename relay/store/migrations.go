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
	// tasks: the MCP tasks of running tool calls, so that a relay restart
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
}

// migrate creates schema_migrations if needed and applies every migration
// newer than the recorded version, each in its own transaction. The version
// is read inside the transaction, so two processes opening the same file
// cannot apply a migration twice.
func (s *Store) migrate(ctx context.Context) error {
	const createTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER NOT NULL PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`
	if _, err := s.db.ExecContext(ctx, createTable); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for {
		done := false
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			var version int
			row := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`)
			if err := row.Scan(&version); err != nil {
				return fmt.Errorf("read schema version: %w", err)
			}
			if version > len(migrations) {
				return fmt.Errorf("schema version %d is newer than this relay knows (%d)", version, len(migrations))
			}
			if version == len(migrations) {
				done = true
				return nil
			}
			next := version + 1
			if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
				return fmt.Errorf("apply migration %d: %w", next, err)
			}
			const record = `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`
			if _, err := tx.ExecContext(ctx, record, next, time.Now().UnixMilli()); err != nil {
				return fmt.Errorf("record migration %d: %w", next, err)
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
