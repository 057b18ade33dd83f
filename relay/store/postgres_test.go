package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// postgresOnly skips the test in the pass on SQLite.
func postgresOnly(t testing.TB) {
	t.Helper()
	if testPG == nil {
		t.Skip("PostgreSQL only")
	}
}

func TestRebindNumbersPlaceholdersOutsideQuotesAndComments(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a FROM t WHERE b = ? AND c = ?`:            `SELECT a FROM t WHERE b = $1 AND c = $2`,
		`SELECT '?', "?" FROM t WHERE x LIKE ? ESCAPE '\'`: `SELECT '?', "?" FROM t WHERE x LIKE $1 ESCAPE '\'`,
		`SELECT 'it''s ?' , ?`:                             `SELECT 'it''s ?' , $1`,
		"SELECT ? -- and ?\n, ?":                           "SELECT $1 -- and ?\n, $2",
		`SELECT 1`:                                         `SELECT 1`,
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// column is what the schema test compares of a column.
type column struct {
	name    string
	notNull bool
}

// foreignKey is what the schema test compares of a foreign key.
type foreignKey struct {
	from, table, to, onDelete string
}

// schema is what the schema test compares of a database.
type schema struct {
	version     int
	columns     map[string][]column // by table
	indexes     []string            // table.name of the indexes made by CREATE INDEX
	foreignKeys map[string][]foreignKey
}

// The engines end at the same version with the same tables, columns (and
// whether they take NULL), indexes and foreign keys with their cascades,
// so that neither list of migrations drifts from the other. PostgreSQL's
// rowid columns stand for SQLite's implicit ones.
func TestEnginesHaveTheSameSchema(t *testing.T) {
	postgresOnly(t)
	ctx := context.Background()
	lite, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, _ := openTest(t)
	want, got := sqliteSchema(t, lite.db), postgresSchema(t, pg.db)
	if got.version != want.version || got.version != sqliteEngine.latest() || got.version != postgresEngine.latest() {
		t.Errorf("versions: PostgreSQL %d (its migrations end at %d), SQLite %d (%d)",
			got.version, postgresEngine.latest(), want.version, sqliteEngine.latest())
	}
	for _, what := range []struct {
		name      string
		got, want any
	}{
		{"columns", got.columns, want.columns},
		{"indexes", got.indexes, want.indexes},
		{"foreign keys", got.foreignKeys, want.foreignKeys},
	} {
		if g, w := fmt.Sprint(what.got), fmt.Sprint(what.want); g != w {
			t.Errorf("%s differ:\nPostgreSQL %s\nSQLite     %s", what.name, g, w)
		}
	}
}

func sqliteSchema(t *testing.T, db *sql.DB) schema {
	t.Helper()
	s := schema{columns: map[string][]column{}, foreignKeys: map[string][]foreignKey{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&s.version))
	tables, err := queryStrings(db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	must(err)
	for _, table := range tables {
		rows, err := db.Query(`SELECT name, "notnull", pk FROM pragma_table_info(?) ORDER BY name`, table)
		must(err)
		for rows.Next() {
			var c column
			var notNull, pk int
			must(rows.Scan(&c.name, &notNull, &pk))
			c.notNull = notNull == 1 || pk > 0 // a primary key never holds NULL in the store's tables
			s.columns[table] = append(s.columns[table], c)
		}
		must(rows.Err())
		rows.Close()
		rows, err = db.Query(`SELECT "from", "table", COALESCE("to", ''), on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, table)
		must(err)
		for rows.Next() {
			var fk foreignKey
			must(rows.Scan(&fk.from, &fk.table, &fk.to, &fk.onDelete))
			s.foreignKeys[table] = append(s.foreignKeys[table], fk)
		}
		must(rows.Err())
		rows.Close()
		sortKeys(s.foreignKeys[table])
	}
	s.indexes, err = queryStrings(db, `SELECT tbl_name || '.' || name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY 1`)
	must(err)
	return s
}

func postgresSchema(t *testing.T, db *sql.DB) schema {
	t.Helper()
	s := schema{columns: map[string][]column{}, foreignKeys: map[string][]foreignKey{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&s.version))
	rows, err := db.Query(`SELECT table_name, column_name, is_nullable = 'NO' FROM information_schema.columns
		WHERE table_schema = current_schema() AND column_name <> 'rowid' ORDER BY table_name, column_name`)
	must(err)
	for rows.Next() {
		var table string
		var c column
		must(rows.Scan(&table, &c.name, &c.notNull))
		s.columns[table] = append(s.columns[table], c)
	}
	must(rows.Err())
	rows.Close()
	// The columns of each foreign key, pairwise, and its action on delete.
	rows, err = db.Query(`SELECT c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text, b.attname,
			CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END
		FROM pg_constraint c
		CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k(from_col, to_col)
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.from_col
		JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = k.to_col
		WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`)
	must(err)
	for rows.Next() {
		var table string
		var fk foreignKey
		must(rows.Scan(&table, &fk.from, &fk.table, &fk.to, &fk.onDelete))
		s.foreignKeys[table] = append(s.foreignKeys[table], fk)
	}
	must(rows.Err())
	rows.Close()
	for _, fks := range s.foreignKeys {
		sortKeys(fks)
	}
	s.indexes, err = queryStrings(db, `SELECT i.tablename || '.' || i.indexname FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint c
			WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
		ORDER BY 1`)
	must(err)
	return s
}

func sortKeys(fks []foreignKey) {
	slices.SortFunc(fks, func(a, b foreignKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
}

// Every table but schema_migrations notifies its changes, so that Watch
// hears of them: a migration that adds a table must add its trigger.
func TestEveryPostgresTableNotifiesItsChanges(t *testing.T) {
	postgresOnly(t)
	s, _ := openTest(t)
	missing, err := queryStrings(s.db, `SELECT tablename FROM pg_tables t
		WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' AND NOT EXISTS (
			SELECT 1 FROM pg_trigger g WHERE g.tgrelid = (quote_ident(t.schemaname) || '.' || quote_ident(t.tablename))::regclass
				AND g.tgname = t.tablename || '_notify')`)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("tables without a notify trigger: %v", missing)
	}
}

// watchCalls runs s.Watch until the test ends, flagging each call.
func watchCalls(t *testing.T, s *Store, interval time.Duration) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- s.Watch(ctx, interval, func() {
			select {
			case calls <- struct{}{}:
			default:
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
	return calls
}

// awaitCall writes with write, again every few intervals (the first write
// may come before the watch took its first look), until the watch calls.
func awaitCall(t *testing.T, calls <-chan struct{}, interval time.Duration, write func(i int)) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	again := time.NewTicker(5 * interval)
	defer again.Stop()
	for i := 0; ; i++ {
		write(i)
		select {
		case <-calls:
			return
		case <-again.C:
		case <-deadline:
			t.Fatal("the watch did not call within 10s of a change")
		}
	}
}

// Watch calls after a change made by another process, on either engine.
func TestWatchCallsAfterAnotherProcessWrites(t *testing.T) {
	ctx := context.Background()
	s, db := openTest(t)
	other := openAt(t, db)
	const interval = 20 * time.Millisecond
	calls := watchCalls(t, s, interval)
	awaitCall(t, calls, interval, func(i int) {
		if err := other.SetSetting(ctx, "theme", fmt.Sprint("dark ", i)); err != nil {
			t.Fatal(err)
		}
	})
}

// On PostgreSQL a watch calls once it listens: what was written before,
// while it made its connection, was told to nobody.
func TestWatchOnPostgresCallsOnceItListens(t *testing.T) {
	postgresOnly(t)
	s, db := openTest(t)
	if err := openAt(t, db).SetSetting(context.Background(), "theme", "dark"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watchCalls(t, s, 20*time.Millisecond):
	case <-time.After(10 * time.Second):
		t.Fatal("no call within 10s of the watch's start")
	}
}

// On PostgreSQL a watch whose connection is lost listens again, calls
// (changes may have been missed), and then hears the next change.
func TestWatchListensAgainAfterItsConnectionIsLost(t *testing.T) {
	postgresOnly(t)
	ctx := context.Background()
	s, db := openTest(t)
	other := openAt(t, db)
	const interval = 20 * time.Millisecond
	calls := watchCalls(t, s, interval)
	write := func(i int) {
		if err := other.SetSetting(ctx, "theme", fmt.Sprint("dark ", i)); err != nil {
			t.Fatal(err)
		}
	}
	awaitCall(t, calls, interval, write) // listening now
	var killed int
	err := other.db.QueryRowContext(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE query = 'LISTEN "' || left('switchboard_' || current_schema(), 63) || '"'`).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("end the watch's connection: ended %d, %v", killed, err)
	}
	select {
	case <-calls:
	case <-time.After(10 * time.Second):
		t.Fatal("no call within 10s of the lost connection")
	}
	awaitCall(t, calls, interval, write)
}

// Several processes opening one new database at once all succeed, and each
// migration is applied once.
func TestProcessesOpeningANewDatabaseAtOnceMigrateItOnce(t *testing.T) {
	ctx := context.Background()
	db := testDB{Dir: filepath.Join(t.TempDir(), "data")}
	if testPG != nil {
		db.URL = testPG.NewSchema(t)
	}
	var wg sync.WaitGroup
	stores := make([]*Store, 4)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = db.open(ctx) })
	}
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Errorf("process %d: %v", i, errs[i])
			continue
		}
		defer s.Close()
	}
	if t.Failed() {
		return
	}
	var n, max int
	if err := stores[0].db.QueryRowContext(ctx, `SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if latest := stores[0].engine.latest(); n != latest || max != latest {
		t.Errorf("schema_migrations holds %d rows up to version %d; want %d", n, max, latest)
	}
}

// Refresh tokens used at once by several processes rotate once: the store's
// transactions run one at a time on PostgreSQL too.
func TestARefreshTokenUsedAtOnceRotatesOnce(t *testing.T) {
	ctx := context.Background()
	s, db := openTest(t)
	now := time.Now()
	first, rt := NewAgentToken(TokenRefresh, now.Add(time.Hour))
	if _, err := s.CreateAgentGrant(ctx, AgentGrant{User: "ann", ClientID: "c", AllServers: true}, rt); err != nil {
		t.Fatal(err)
	}
	others := []*Store{s, openAt(t, db), openAt(t, db), openAt(t, db)}
	var wg sync.WaitGroup
	errs := make([]error, 4*len(others))
	for i := range errs {
		wg.Go(func() {
			_, next := NewAgentToken(TokenRefresh, now.Add(time.Hour))
			_, errs[i] = others[i%len(others)].RotateAgentRefresh(ctx, HashAgentToken(first), now, next)
		})
	}
	wg.Wait()
	rotated := 0
	for _, err := range errs {
		switch {
		case err == nil:
			rotated++
		case !errors.Is(err, ErrRefreshReused) && !errors.Is(err, ErrGrantRevoked):
			t.Errorf("rotate: %v", err)
		}
	}
	if rotated != 1 {
		t.Errorf("the refresh token rotated %d times, want once", rotated)
	}
}

// A PostgreSQL address that is wrong is refused naming what is wrong, and
// never with its password.
func TestOpenPostgresNamesWhatIsWrongWithoutThePassword(t *testing.T) {
	postgresOnly(t)
	ctx := context.Background()
	const secret = "pw-SECRET-123"
	wrongPassword, _ := url.Parse(testPG.NewSchema(t))
	wrongPassword.User = url.UserPassword("postgres", secret)
	for _, tc := range []struct{ name, dsn, want string }{
		{"not a URL", "host=127.0.0.1 password=" + secret, "postgres:// or postgresql:// URL"},
		{"another scheme", "mysql://root:" + secret + "@127.0.0.1/db", "postgres:// or postgresql:// URL"},
		{"a bad port", "postgres://postgres:" + secret + "@127.0.0.1:port/db", "postgres:// or postgresql:// URL"},
		{"nothing listening", "postgres://postgres:" + secret + "@127.0.0.1:1/db?connect_timeout=5", "reach the database"},
		{"a password in the query", "postgres://postgres@127.0.0.1:1/db?connect_timeout=5&password=" + secret, "reach the database"},
		{"a bad parameter", "postgres://postgres:" + secret + "@127.0.0.1/db?sslmode=sometimes", "sslmode"},
		{"a wrong password", wrongPassword.String(), "password authentication failed"},
	} {
		s, err := OpenPostgres(ctx, tc.dsn, t.TempDir())
		if err == nil {
			s.Close()
			t.Errorf("%s: opened", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v; want it to say %q and not the password", tc.name, err, tc.want)
		}
	}
}

// Without a key directory the seal key must come from the environment.
func TestOpenPostgresWantsAKeyDirectoryOrTheKeyInTheEnvironment(t *testing.T) {
	postgresOnly(t)
	ctx := context.Background()
	dsn := testPG.NewSchema(t)
	t.Setenv(SealKeyEnv, "")
	os.Unsetenv(SealKeyEnv)
	if s, err := OpenPostgres(ctx, dsn, ""); err == nil || !strings.Contains(err.Error(), SealKeyEnv) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("without a key directory: %v; want $%s named", err, SealKeyEnv)
	}
	t.Setenv(SealKeyEnv, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	s, err := OpenPostgres(ctx, dsn, "")
	if err != nil {
		t.Fatalf("with the key in the environment: %v", err)
	}
	s.Close()
}

// Ready takes a write on either engine; on PostgreSQL, one that waits for
// another process's transaction is not ready before the deadline.
func TestReadyTakesAWriteAndWaitsForTheStoreLock(t *testing.T) {
	ctx := context.Background()
	s, db := openTest(t)
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	if testPG == nil {
		return
	}
	other := openAt(t, db)
	tx, err := other.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, postgresEngine.txLock); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := s.Ready(short); err == nil {
		t.Error("Ready while another process holds the store's lock: ready")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready once the lock is free: %v", err)
	}
}
