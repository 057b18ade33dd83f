package store

// pgMigrations are PostgreSQL's migrations (see migrations.go for SQLite's).
// The first creates the schema SQLite has at version pgBaseVersion; each
// later one brings the schema to the same version as SQLite's migration of
// that number and is appended with it. Append only: never edit or reorder
// an entry that has shipped. TestEnginesHaveTheSameSchema holds the two
// lists to the same tables, columns, indexes and foreign keys.
//
// The types: TEXT stays, INTEGER is BIGINT (BOOLEAN for the flags SQLite
// keeps as 0 or 1), BLOB is BYTEA. The tables whose order of insertion the
// store reads (ORDER BY rowid) have an identity column named rowid, as
// SQLite's implicit one. Every table but schema_migrations has the trigger
// <table>_notify, through which [Store.Watch] hears of every change; a
// migration that adds a table must add its trigger.
var pgMigrations = []string{
	// 1 to 17.
	`CREATE TABLE servers (
		user_id        TEXT    NOT NULL,
		server_id      TEXT    NOT NULL,
		name           TEXT    NOT NULL,
		url            TEXT    NOT NULL, -- with its secret query values masked
		transport      TEXT    NOT NULL,
		created_at     BIGINT  NOT NULL, -- Unix milliseconds
		secrets        BYTEA,            -- sealed JSON: the whole URL and the header values; NULL without
		header_names   TEXT    NOT NULL DEFAULT '', -- newline-separated
		disconnected   BOOLEAN NOT NULL DEFAULT false, -- the person keeps it disconnected
		retry_attempts BIGINT  NOT NULL DEFAULT 0, -- 0: the relay's default
		retry_base_ms  BIGINT  NOT NULL DEFAULT 0,
		retry_max_ms   BIGINT  NOT NULL DEFAULT 0,
		rowid          BIGINT  GENERATED ALWAYS AS IDENTITY,
		PRIMARY KEY (user_id, server_id),
		UNIQUE (user_id, name)
	);
	CREATE TABLE login_codes (
		code_hash  BYTEA  NOT NULL PRIMARY KEY,
		user_id    TEXT   NOT NULL,
		expires_at BIGINT NOT NULL, -- Unix milliseconds
		used_at    BIGINT           -- Unix milliseconds, NULL until used
	);
	CREATE INDEX login_codes_expires_at ON login_codes (expires_at);
	CREATE TABLE settings (
		key   TEXT NOT NULL PRIMARY KEY,
		value TEXT NOT NULL
	);
	CREATE TABLE oauth_clients (
		user_id       TEXT   NOT NULL,
		server_id     TEXT   NOT NULL,
		source        TEXT   NOT NULL, -- manual or dynamic
		issuer        TEXT   NOT NULL, -- the authorization server; empty for any
		redirect_uri  TEXT   NOT NULL, -- the redirect URI registered, for dynamic ones
		client_id     TEXT   NOT NULL,
		client_secret BYTEA,           -- sealed; NULL for a public client
		auth_method   TEXT   NOT NULL, -- token_endpoint_auth_method
		created_at    BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id, source),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE oauth_tokens (
		user_id        TEXT   NOT NULL,
		server_id      TEXT   NOT NULL,
		issuer         TEXT   NOT NULL,
		token_endpoint TEXT   NOT NULL,
		resource       TEXT   NOT NULL,
		client_id      TEXT   NOT NULL,
		client_source  TEXT   NOT NULL,
		auth_method    TEXT   NOT NULL,
		scopes         TEXT   NOT NULL, -- space-separated
		secrets        BYTEA  NOT NULL, -- sealed access and refresh tokens
		expires_at     BIGINT NOT NULL, -- Unix milliseconds; 0 when the token does not say
		updated_at     BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE oauth_states (
		state_hash     BYTEA   NOT NULL PRIMARY KEY,
		user_id        TEXT    NOT NULL,
		server_id      TEXT    NOT NULL,
		redirect_uri   TEXT    NOT NULL,
		issuer         TEXT    NOT NULL,
		iss_required   BOOLEAN NOT NULL, -- the callback must carry iss (RFC 9207)
		token_endpoint TEXT    NOT NULL,
		resource       TEXT    NOT NULL,
		client_id      TEXT    NOT NULL,
		client_source  TEXT    NOT NULL,
		auth_method    TEXT    NOT NULL,
		scopes         TEXT    NOT NULL,
		verifier       BYTEA   NOT NULL, -- sealed PKCE code verifier
		expires_at     BIGINT  NOT NULL, -- Unix milliseconds
		used_at        BIGINT,           -- Unix milliseconds, NULL until used
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE INDEX oauth_states_server ON oauth_states (user_id, server_id);
	CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at);
	CREATE TABLE user_roots (
		user_id  TEXT   NOT NULL,
		position BIGINT NOT NULL,
		uri      TEXT   NOT NULL,
		name     TEXT   NOT NULL,
		PRIMARY KEY (user_id, position)
	);
	CREATE TABLE server_client_prefs (
		user_id      TEXT    NOT NULL,
		server_id    TEXT    NOT NULL,
		roots_hidden BOOLEAN NOT NULL DEFAULT false, -- the server sees no roots
		log_level    TEXT    NOT NULL DEFAULT '',    -- empty: none asked for
		ask_modes    TEXT    NOT NULL DEFAULT '',    -- JSON wire.AskModes; empty: defaults
		PRIMARY KEY (user_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE agent_keys (
		key_id           TEXT    NOT NULL PRIMARY KEY,
		user_id          TEXT    NOT NULL,
		name             TEXT    NOT NULL,
		secret_hash      BYTEA   NOT NULL, -- SHA-256 of the whole key
		all_servers      BOOLEAN NOT NULL, -- every server of the user, now and later
		tools            TEXT,             -- JSON array of allowed tool names; NULL for all
		expires_at       BIGINT  NOT NULL, -- Unix milliseconds; 0 for never
		created_at       BIGINT  NOT NULL, -- Unix milliseconds
		last_used_at     BIGINT  NOT NULL, -- Unix milliseconds; 0 for never
		revoked_at       BIGINT  NOT NULL, -- Unix milliseconds; 0 while valid
		forward_sampling BOOLEAN NOT NULL DEFAULT false,
		tool_mode        TEXT    NOT NULL DEFAULT 'tools',
		rowid            BIGINT  GENERATED ALWAYS AS IDENTITY
	);
	CREATE INDEX agent_keys_user ON agent_keys (user_id, created_at);
	CREATE TABLE agent_key_servers (
		key_id    TEXT   NOT NULL REFERENCES agent_keys (key_id) ON DELETE CASCADE,
		user_id   TEXT   NOT NULL,
		server_id TEXT   NOT NULL,
		rowid     BIGINT GENERATED ALWAYS AS IDENTITY,
		PRIMARY KEY (key_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE INDEX agent_key_servers_server ON agent_key_servers (user_id, server_id);
	CREATE TABLE agent_calls (
		call_id     BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
		user_id     TEXT    NOT NULL,
		agent       TEXT    NOT NULL,
		key_id      TEXT    NOT NULL,
		server_id   TEXT    NOT NULL, -- kept after the server is removed: this is a log
		tool        TEXT    NOT NULL,
		started_at  BIGINT  NOT NULL, -- Unix milliseconds
		duration_ms BIGINT  NOT NULL,
		outcome     TEXT    NOT NULL,
		asked       BOOLEAN NOT NULL, -- a person was asked during the call
		program     TEXT    NOT NULL DEFAULT '',
		by_code     BOOLEAN NOT NULL DEFAULT false
	);
	CREATE INDEX agent_calls_user ON agent_calls (user_id, call_id);
	CREATE TABLE resource_subscriptions (
		user_id    TEXT   NOT NULL,
		server_id  TEXT   NOT NULL,
		uri        TEXT   NOT NULL,
		created_at BIGINT NOT NULL, -- Unix milliseconds
		rowid      BIGINT GENERATED ALWAYS AS IDENTITY,
		PRIMARY KEY (user_id, server_id, uri),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE call_tasks (
		user_id    TEXT   NOT NULL,
		server_id  TEXT   NOT NULL,
		call_id    TEXT   NOT NULL,
		task_id    TEXT   NOT NULL,
		tool       TEXT   NOT NULL,
		started_at BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, call_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE oauth_machine_clients (
		user_id     TEXT   NOT NULL,
		server_id   TEXT   NOT NULL,
		grant_type  TEXT   NOT NULL, -- client_credentials or cross_app
		client_id   TEXT   NOT NULL,
		auth_method TEXT   NOT NULL, -- client_secret_basic, client_secret_post or private_key_jwt
		secret      BYTEA  NOT NULL, -- sealed client secret or PEM private key
		signing_alg TEXT   NOT NULL, -- JWS algorithm of private_key_jwt; empty: from the key
		scope       TEXT   NOT NULL, -- space-separated; empty: what the server asks for
		created_at  BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE agent_oauth_clients (
		client_id     TEXT   NOT NULL PRIMARY KEY,
		name          TEXT   NOT NULL,
		redirect_uris TEXT   NOT NULL, -- JSON array
		created_at    BIGINT NOT NULL, -- Unix milliseconds
		expires_at    BIGINT NOT NULL  -- Unix milliseconds; 0 once a grant uses it
	);
	CREATE TABLE agent_grants (
		grant_id     TEXT    NOT NULL PRIMARY KEY,
		user_id      TEXT    NOT NULL,
		client_id    TEXT    NOT NULL,
		client_name  TEXT    NOT NULL,
		client_host  TEXT    NOT NULL,
		redirect_uri TEXT    NOT NULL,
		resource     TEXT    NOT NULL, -- the endpoint URL its tokens are bound to
		all_servers  BOOLEAN NOT NULL,
		created_at   BIGINT  NOT NULL, -- Unix milliseconds
		last_used_at BIGINT  NOT NULL, -- Unix milliseconds; 0 for never
		revoked_at   BIGINT  NOT NULL, -- Unix milliseconds; 0 while valid
		tool_mode    TEXT    NOT NULL DEFAULT 'tools',
		rowid        BIGINT  GENERATED ALWAYS AS IDENTITY
	);
	CREATE INDEX agent_grants_user ON agent_grants (user_id, created_at);
	CREATE TABLE agent_grant_servers (
		grant_id  TEXT NOT NULL REFERENCES agent_grants (grant_id) ON DELETE CASCADE,
		user_id   TEXT NOT NULL,
		server_id TEXT NOT NULL,
		PRIMARY KEY (grant_id, server_id),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE INDEX agent_grant_servers_server ON agent_grant_servers (user_id, server_id);
	CREATE TABLE agent_tokens (
		token_hash BYTEA  NOT NULL PRIMARY KEY, -- SHA-256 of the token
		grant_id   TEXT   NOT NULL REFERENCES agent_grants (grant_id) ON DELETE CASCADE,
		kind       TEXT   NOT NULL, -- access or refresh
		expires_at BIGINT NOT NULL, -- Unix milliseconds
		used_at    BIGINT NOT NULL  -- a refresh token: when it was rotated; 0 while fresh
	);
	CREATE INDEX agent_tokens_grant ON agent_tokens (grant_id);
	CREATE TABLE server_marks (
		user_id TEXT   NOT NULL PRIMARY KEY,
		seq     BIGINT NOT NULL
	);
	CREATE INDEX server_marks_seq ON server_marks (seq);
	-- Marks are numbered under a lock held until commit, so that they
	-- become visible in the order of their numbers.
	CREATE FUNCTION servers_mark() RETURNS trigger LANGUAGE plpgsql AS $$
	DECLARE
		u TEXT;
	BEGIN
		IF TG_OP = 'DELETE' THEN u := OLD.user_id; ELSE u := NEW.user_id; END IF;
		LOCK TABLE server_marks IN EXCLUSIVE MODE;
		UPDATE server_marks SET seq = (SELECT MAX(seq) + 1 FROM server_marks) WHERE user_id = u;
		IF NOT FOUND THEN
			INSERT INTO server_marks (user_id, seq) SELECT u, COALESCE(MAX(seq), 0) + 1 FROM server_marks;
		END IF;
		RETURN NULL;
	END $$;
	CREATE TRIGGER servers_mark AFTER INSERT OR UPDATE OR DELETE ON servers
		FOR EACH ROW EXECUTE FUNCTION servers_mark();
	CREATE TABLE chats (
		user_id    TEXT   NOT NULL,
		chat_id    TEXT   NOT NULL,
		title      TEXT   NOT NULL,
		model      TEXT   NOT NULL,
		group_id   TEXT   NOT NULL, -- the compare group; empty for none
		body       TEXT   NOT NULL, -- JSON: the rest of the summary (servers, tools, always, turns)
		created_at BIGINT NOT NULL, -- Unix milliseconds
		updated_at BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, chat_id)
	);
	CREATE INDEX chats_updated ON chats (user_id, updated_at);
	CREATE TABLE chat_turns (
		user_id     TEXT   NOT NULL,
		chat_id     TEXT   NOT NULL,
		turn_id     TEXT   NOT NULL,
		n           BIGINT NOT NULL, -- its place in the conversation, from 0
		status      TEXT   NOT NULL, -- as in body
		body        TEXT   NOT NULL, -- JSON wire.ChatTurn
		search_text TEXT   NOT NULL, -- lowercased message, attachment names and URIs, answer text
		started_at  BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, chat_id, turn_id),
		FOREIGN KEY (user_id, chat_id) REFERENCES chats (user_id, chat_id) ON DELETE CASCADE
	);
	CREATE INDEX chat_turns_n ON chat_turns (user_id, chat_id, n);
	CREATE INDEX chat_turns_running ON chat_turns (status) WHERE status = 'running';
	CREATE TABLE model_keys (
		user_id    TEXT   NOT NULL,
		model      TEXT   NOT NULL, -- the name of a configured model
		key        BYTEA  NOT NULL, -- sealed
		created_at BIGINT NOT NULL, -- Unix milliseconds
		PRIMARY KEY (user_id, model)
	);
	CREATE TABLE tool_policies (
		user_id   TEXT NOT NULL,
		server_id TEXT NOT NULL,
		tool      TEXT NOT NULL,
		policy    TEXT NOT NULL CHECK (policy IN ('run', 'ask', 'never')),
		PRIMARY KEY (user_id, server_id, tool),
		FOREIGN KEY (user_id, server_id) REFERENCES servers (user_id, server_id) ON DELETE CASCADE
	);
	CREATE TABLE identity_tokens (
		user_id    TEXT   NOT NULL PRIMARY KEY,
		issuer     TEXT   NOT NULL,
		secrets    BYTEA  NOT NULL, -- sealed
		expires_at BIGINT NOT NULL, -- Unix milliseconds of the ID token's expiry
		updated_at BIGINT NOT NULL  -- Unix milliseconds
	);
	-- Every change of a table is told to the listeners of the schema's
	-- channel (see pgChannel), once per statement.
	CREATE FUNCTION switchboard_notify() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_notify(left('switchboard_' || TG_TABLE_SCHEMA, 63), '');
		RETURN NULL;
	END $$;
	DO $$
	DECLARE
		t TEXT;
	BEGIN
		FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' LOOP
			EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION switchboard_notify()',
				t || '_notify', t);
		END LOOP;
	END $$`,
	// 18: agents' authorizations in flight (see migrations.go).
	`CREATE TABLE agent_authorizations (
		request_hash BYTEA   NOT NULL PRIMARY KEY, -- SHA-256 of the request id
		code_hash    BYTEA   UNIQUE,   -- SHA-256 of its code; NULL while pending
		user_id      TEXT    NOT NULL, -- who approved it; '' while pending
		body         TEXT    NOT NULL, -- JSON: the request, then with what was approved
		expires_at   BIGINT  NOT NULL, -- Unix milliseconds: the request's, then the code's
		spent_at     BIGINT  NOT NULL, -- Unix milliseconds; 0 until its code is spent
		grant_id     TEXT    NOT NULL, -- the grant its code created; '' until then
		reused       BOOLEAN NOT NULL  -- true once its code came again
	);
	CREATE INDEX agent_authorizations_expires_at ON agent_authorizations (expires_at);
	CREATE TRIGGER agent_authorizations_notify AFTER INSERT OR UPDATE OR DELETE ON agent_authorizations
		FOR EACH STATEMENT EXECUTE FUNCTION switchboard_notify()`,
}

// pgBaseVersion is the version pgMigrations[0] brings a database to.
const pgBaseVersion = 17
