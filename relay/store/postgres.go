package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// engine is what differs between SQLite and PostgreSQL. The rest of the
// store's SQL is the same on both, written with ? placeholders.
type engine struct {
	// migrations bring an empty database to the latest version: the first
	// to version base, each next one to the version after (see migrate).
	migrations []string
	base       int
	// schemaMigrations creates the table of applied versions if missing.
	schemaMigrations string
	// txLock, when set, runs first in every transaction.
	txLock string
	// setJSONStatus is the SQL of the JSON text column col with its status
	// member set to the string literal status.
	setJSONStatus func(col, status string) string
}

// latest is the schema version the engine's migrations end at.
func (e *engine) latest() int { return e.base + len(e.migrations) - 1 }

var sqliteEngine = &engine{
	migrations: migrations,
	base:       1,
	schemaMigrations: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER NOT NULL PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`,
	setJSONStatus: func(col, status string) string {
		return "json_set(" + col + ", '$.status', '" + status + "')"
	},
}

var postgresEngine = &engine{
	migrations: pgMigrations,
	base:       pgBaseVersion,
	schemaMigrations: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    BIGINT NOT NULL PRIMARY KEY,
		applied_at BIGINT NOT NULL
	)`,
	// PostgreSQL runs the store's transactions one at a time, as SQLite
	// does with its write lock: they read, then write what they read
	// (a refresh token rotates once, a state is consumed once), and
	// migrations must not run twice at once.
	txLock: `SELECT pg_advisory_xact_lock(` + strconv.Itoa(pgLockKey) + `)`,
	setJSONStatus: func(col, status string) string {
		return "jsonb_set(" + col + "::jsonb, '{status}', to_jsonb('" + status + "'::text))::text"
	},
}

// pgLockKey is the advisory lock of the store's transactions on PostgreSQL,
// one per database ("Swbd").
const pgLockKey = 0x53776264

// pgMaxOpenConns bounds the pool of connections to PostgreSQL.
const pgMaxOpenConns = 8

// OpenPostgres opens the store in the PostgreSQL database at dsn, a
// postgres:// or postgresql:// URL (its search_path parameter, if any,
// names the schema), and brings the schema up to date. Several processes
// may open one database at once: they migrate it one after another. The
// sealing key never goes to the database: it comes from
// $SWITCHBOARD_SEAL_KEY, else from the key file in keyDir, created when
// missing (see [LoadSealer]); every process on one database needs the same
// key. Errors name the database without its password.
func OpenPostgres(ctx context.Context, dsn, keyDir string) (*Store, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, errors.New("open store: the PostgreSQL database must be given as a postgres:// or postgresql:// URL")
	}
	where := "open store " + redacted(u)
	if _, ok := os.LookupEnv(SealKeyEnv); !ok && keyDir == "" {
		return nil, fmt.Errorf("%s: no directory for the seal key, and $%s is not set", where, SealKeyEnv)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	sealer, err := LoadSealer(keyDir)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(pgMaxOpenConns)
	db.SetMaxIdleConns(pgMaxOpenConns)
	s := &Store{db: db, sealer: sealer, engine: postgresEngine, pg: cfg}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: reach the database: %w", where, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := s.checkSealKey(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := s.sealPlainURLs(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return s, nil
}

// redacted is u with the password of its user and those of its query
// (password, sslpassword, which pgx reads too) masked.
func redacted(u *url.URL) string {
	c := *u
	q := c.Query()
	masked := false
	for _, k := range []string{"password", "sslpassword"} {
		if q.Has(k) {
			q.Set(k, "xxxxx")
			masked = true
		}
	}
	if masked {
		c.RawQuery = q.Encode()
	}
	return c.Redacted()
}

// rebindConnector gives database/sql connections to PostgreSQL that take
// the store's ? placeholders.
type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rebindConn{conn.(*stdlib.Conn)}, nil
}

// rebindConn is a pgx connection whose queries are rebound before they go.
type rebindConn struct{ *stdlib.Conn }

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// rebound caches rebind's work: the store's queries are a fixed set.
var rebound sync.Map

// rebind numbers the ? placeholders of query $1, $2, ... for PostgreSQL. A
// ? in a quoted string or identifier, or in a -- comment, stays.
func rebind(query string) string {
	if q, ok := rebound.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	n := 0
	var quote byte // ' or " while in a quoted string or identifier
	comment := false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case comment:
			comment = c != '\n'
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			comment = true
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	rebound.Store(query, b.String())
	return b.String()
}
