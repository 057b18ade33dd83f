// Package store is the relay's persistence: by default one SQLite file in
// the data directory, opened in WAL mode through the pure-Go
// modernc.org/sqlite driver; or a PostgreSQL database, which several
// relays can share.
//
// Open creates the directory (mode 0700), opens switchboard.db and applies the
// numbered migrations of migrations.go, each in its own transaction.
// OpenPostgres opens a database given by a postgres:// URL (through pgx)
// and applies PostgreSQL's migrations (pgmigrations.go), which bring it to
// the same versions with the same tables. Both run the same queries,
// written with ? placeholders, which the connections to PostgreSQL number;
// the few differences are named in the engine type. OpenTarget is the
// relay's choice between the two: PostgreSQL when given a URL, else SQLite.
//
// The store holds server registrations per user, one-time login codes
// (only their SHA-256 hashes), settings, and through [Store.OAuth] the OAuth client
// registrations, tokens and pending authorization states of each user's
// servers. For the chat it holds each user's conversations (at most
// [wire.MaxChats]) with their turns, which go with their conversation, the
// user's approval policy per tool, and through [Store.ModelKeys] the user's
// own keys for the configured models.
//
// Every record that belongs to one server (OAuth records, client
// preferences and ask modes, subscriptions, call tasks, agent key scopes,
// tool policies) has a foreign key to it with ON DELETE CASCADE, and every
// SQLite connection runs with foreign keys on: removing a server is one
// statement.
//
// Secrets (tokens, client secrets, PKCE verifiers, a server's custom header
// values and the secret query values of its URL, model keys) are sealed at
// rest with AES-256-GCM by a [Sealer], whose key comes from
// $SWITCHBOARD_SEAL_KEY or a 0600 file seal.key in the data directory (for
// PostgreSQL, in the key directory OpenPostgres is given), never from the
// database ([LoadSealer]). Each sealed value is bound to its column and
// owner, so it does not open elsewhere.
//
// Users are isolated by construction: every server query takes the user and
// filters on it. Times are stored as Unix milliseconds and read back in UTC.
package store
