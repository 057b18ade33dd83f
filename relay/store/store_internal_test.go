package store

import (
	"context"
	"path/filepath"
	"testing"
)

func TestEveryConnectionHasWALForeignKeysAndBusyTimeout(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// Hold several connections at once so the pool opens more than one.
	for i := range maxOpenConns {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var mode string
		var fk, busy int
		if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || fk != 1 || busy != int(busyTimeout.Milliseconds()) {
			t.Errorf("connection %d: journal_mode=%s foreign_keys=%d busy_timeout=%d; want wal, 1, %d",
				i, mode, fk, busy, busyTimeout.Milliseconds())
		}
	}
}

func TestMigrationsApplyOnceAcrossReopens(t *testing.T) {
	ctx := context.Background()
	_, db := openTest(t)
	for range 3 {
		s, err := db.open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var n, max int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatal(err)
		}
		if latest := s.engine.latest(); n != latest || max != latest {
			t.Errorf("schema_migrations holds %d rows up to version %d; want %d", n, max, latest)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenRefusesSchemaNewerThanRelay(t *testing.T) {
	ctx := context.Background()
	s, db := openTest(t)
	future := s.engine.latest() + 1
	if _, err := s.db.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, future); err != nil {
		t.Fatal(err)
	}
	s.Close()

	if s, err := db.open(ctx); err == nil {
		s.Close()
		t.Fatal("Open accepted a database from a newer relay")
	}
}

func TestOpenRefusesQuestionMarkInPath(t *testing.T) {
	sqliteOnly(t)
	if s, err := Open(context.Background(), filepath.Join(t.TempDir(), "a?b")); err == nil {
		s.Close()
		t.Fatal("Open accepted a directory whose name would be read as DSN parameters")
	}
}
