// Package store is the relay's persistence: one SQLite file in the data
// directory, opened in WAL mode through the pure-Go modernc.org/sqlite driver.
//
// Open creates the directory (mode 0700), opens switchboard.db and applies the
// numbered migrations of migrations.go, each in its own transaction. The store
// holds server registrations per user, one-time login codes (only their SHA-256
// hashes) and settings.
//
// Users are isolated by construction: every server query takes the user and
// filters on it. Times are stored as Unix milliseconds and read back in UTC.
package store
