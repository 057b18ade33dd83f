package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
)

const (
	// driverName is the name modernc.org/sqlite registers with database/sql.
	driverName = "sqlite"
	// fileName is the database file inside the data directory.
	fileName = "switchboard.db"
	// dirMode keeps the data directory private to the relay's user.
	dirMode = 0o700
	// fileMode keeps a database file the store creates private too.
	fileMode = 0o600
	// busyTimeout is how long a connection waits for the write lock.
	busyTimeout = 5 * time.Second
	// maxOpenConns bounds the pool: WAL lets readers run beside the single
	// writer, and writers queue on busyTimeout.
	maxOpenConns = 4
)

// Store is the relay's database, on SQLite ([Open]) or PostgreSQL
// ([OpenPostgres]). It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	sealer *Sealer // seals the secrets of servers
	engine *engine
	pg     *pgx.ConnConfig // PostgreSQL's, for Watch's own connection; nil on SQLite
}

// Open creates dir if needed, opens dir/switchboard.db and brings its schema
// up to date.
func Open(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, fileName)
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("open store: data directory %q contains '?'", dir)
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	sealer, err := LoadSealer(dir)
	if err != nil {
		return nil, err
	}
	// Create the database private to the relay's user, also in a directory
	// that existed with wider permissions: SQLite gives its WAL and shared
	// memory files the database file's mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, fmt.Errorf("create store %s: %w", path, err)
	}
	f.Close()
	if err := tightenFiles(path); err != nil {
		return nil, err
	}
	db, err := sql.Open(driverName, path+"?"+dsnParams().Encode())
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	s := &Store{db: db, sealer: sealer, engine: sqliteEngine}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, named(err))
	}
	if err := s.checkSealKey(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, named(err))
	}
	if err := s.sealPlainURLs(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, named(err))
	}
	return s, nil
}

// dsnParams are applied by the driver to every new connection. Transactions
// begin IMMEDIATE so that a read-then-write transaction waits for the write
// lock instead of failing with SQLITE_BUSY.
func dsnParams() url.Values {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return q
}

// Sealer returns the sealer of the store's secrets (see [LoadSealer]), for
// the other tables that keep secrets ([Store.OAuth]).
func (s *Store) Sealer() *Sealer { return s.sealer }

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// inTx runs fn in a transaction and commits it when fn succeeds. A failure
// the disk caused names it ([ErrDiskFull]).
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	ctx, span := tracing.Start(ctx, "store transaction")
	defer func(start time.Time) { metrics.StoreTransaction(start, err); tracing.End(span, err) }(time.Now())
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return named(fmt.Errorf("begin: %w", err))
	}
	if s.engine.txLock != "" {
		if _, err := tx.ExecContext(ctx, s.engine.txLock); err != nil {
			tx.Rollback()
			return fmt.Errorf("lock: %w", err)
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return named(err)
	}
	if err := tx.Commit(); err != nil {
		return named(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// pgUniqueViolation is PostgreSQL's SQLSTATE for a duplicate in a UNIQUE
// or PRIMARY KEY constraint.
const pgUniqueViolation = "23505"

// isUniqueViolation reports whether err is the database refusing a
// duplicate in a UNIQUE or PRIMARY KEY constraint.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgUniqueViolation
}

// isPrimaryKeyViolation reports whether err is the database refusing a
// duplicate primary key. PostgreSQL names a primary key's constraint
// <table>_pkey, as its schema leaves it.
func isPrimaryKeyViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgUniqueViolation && strings.HasSuffix(pe.ConstraintName, "_pkey")
}

// Ready reports whether the store can take a write: it rewrites the
// database's header with what it holds, a write of one page to the
// write-ahead log, then checkpoints the log to nothing, so that the next
// probe's write, like the relay's next, needs new space on the disk. Neither
// grows the database. A failure caused by the disk names it ([ErrDiskFull]).
// On PostgreSQL it commits a write that changes nothing, which fails on a
// read-only or standby server, or one that cannot write.
func (s *Store) Ready(ctx context.Context) error {
	if s.pg != nil {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET applied_at = applied_at
				WHERE version = (SELECT MAX(version) FROM schema_migrations)`)
			return err
		})
		if err != nil {
			return fmt.Errorf("write to the store: %w", err)
		}
		return nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return named(fmt.Errorf("reach the store: %w", err))
	}
	defer conn.Close()
	var version int
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return named(fmt.Errorf("read the header: %w", err))
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, version)); err != nil {
		return named(fmt.Errorf("write the header: %w", err))
	}
	var busy, logPages, moved int
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &moved); err != nil {
		return named(fmt.Errorf("checkpoint: %w", err))
	}
	return nil
}

// sealCheck is the setting that holds sealCheckText sealed with the key of
// the first process that opened the store.
const (
	sealCheck     = "seal_key_check"
	sealCheckText = "switchboard"
)

// checkSealKey refuses a process whose seal key is not the one the store's
// secrets are sealed with (another --data, another $SWITCHBOARD_SEAL_KEY):
// it would seal secrets the relay cannot open, and open none of the
// relay's. The first process to open the store records its key's check.
func (s *Store) checkSealKey(ctx context.Context) error {
	mine := base64.StdEncoding.EncodeToString(s.sealer.Seal([]byte(sealCheckText), sealCheck))
	if _, err := s.exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, sealCheck, mine); err != nil {
		return fmt.Errorf("record the seal key's check: %w", err)
	}
	v, _, err := s.Setting(ctx, sealCheck)
	if err != nil {
		return err
	}
	sealed, err := base64.StdEncoding.DecodeString(v)
	if err == nil {
		_, err = s.sealer.Open(sealed, sealCheck)
	}
	if err != nil {
		return fmt.Errorf("the seal key is not the one this store's secrets are sealed with: give this process the relay's (its --data, or $%s)", SealKeyEnv)
	}
	return nil
}
