package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
)

// Engines a relay's store runs on, as [DescribeTarget] names them.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// OpenTarget opens the store a relay is told to use: the PostgreSQL
// database at storeURL ([OpenPostgres]), its seal key in dataDir; or, when
// storeURL is empty, SQLite in dataDir ([Open]).
func OpenTarget(ctx context.Context, storeURL, dataDir string) (*Store, error) {
	if storeURL == "" {
		return Open(ctx, dataDir)
	}
	if err := CheckTarget(storeURL); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return OpenPostgres(ctx, storeURL, dataDir)
}

// CheckTarget reports whether OpenTarget takes storeURL: empty, or a
// postgres:// or postgresql:// URL. Its error says what is accepted and
// never quotes storeURL, which may hold a password.
func CheckTarget(storeURL string) error {
	if storeURL == "" {
		return nil
	}
	const accepted = "give a postgres:// or postgresql:// URL for PostgreSQL, or none for SQLite in the data directory"
	u, err := url.Parse(storeURL)
	switch {
	case err != nil || u.Scheme == "":
		return errors.New("not a valid URL: " + accepted)
	case u.Scheme != "postgres" && u.Scheme != "postgresql":
		return fmt.Errorf("%s: URLs are not accepted: %s", u.Scheme, accepted)
	}
	return nil
}

// DescribeTarget names the engine of the store OpenTarget opens and where
// it is: the SQLite file, or the PostgreSQL URL with its passwords masked.
func DescribeTarget(storeURL, dataDir string) (engine, where string) {
	if storeURL == "" {
		return EngineSQLite, filepath.Join(dataDir, fileName)
	}
	u, err := url.Parse(storeURL)
	if err != nil {
		return EnginePostgres, "(not a URL)"
	}
	return EnginePostgres, redacted(u)
}
