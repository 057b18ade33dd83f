package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store/pgtest"
)

// The store's tests run twice: on SQLite, then on PostgreSQL, on a server
// of their own (pgtest) where each test gets a fresh schema. A test opens
// its store with openTest; a test of what only SQLite has (its files, its
// disk, its old versions) calls sqliteOnly. $SWITCHBOARD_TEST_POSTGRES=off
// skips the pass on PostgreSQL, =only the pass on SQLite.

// testPG is the PostgreSQL server during the pass on PostgreSQL, else nil.
var testPG *pgtest.Server

func TestMain(m *testing.M) { os.Exit(runOnEngines(m)) }

// runOnEngines runs the tests on each engine and returns the exit code.
func runOnEngines(m *testing.M) int {
	code := 0
	if !pgtest.Only() {
		code = m.Run()
	}
	if pgtest.Off() {
		fmt.Printf("the store's tests on PostgreSQL skipped (%s=off)\n", pgtest.EnvVar)
		return code
	}
	srv, err := pgtest.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "the store's tests on PostgreSQL cannot run: %v\n(%s=off skips them)\n", err, pgtest.EnvVar)
		return 1
	}
	defer srv.Stop()
	testPG = srv
	fmt.Println("the store's tests on PostgreSQL:")
	if c := m.Run(); c != 0 {
		code = c
	}
	return code
}

// testDB is where a test's store lives: SQLite's data directory Dir, or
// the PostgreSQL schema at URL with its seal key in Dir.
type testDB struct {
	Dir string
	URL string // empty on SQLite
}

// openTest opens a store in a fresh database of the engine under test and
// closes it when the test ends.
func openTest(t testing.TB) (*Store, testDB) {
	t.Helper()
	db := testDB{Dir: filepath.Join(t.TempDir(), "data")}
	if testPG != nil {
		db.URL = testPG.NewSchema(t)
	}
	return openAt(t, db), db
}

// openAt opens another store on db, as another process would, and closes
// it when the test ends.
func openAt(t testing.TB, db testDB) *Store {
	t.Helper()
	s, err := db.open(context.Background())
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close the store: %v", err)
		}
	})
	return s
}

// open opens a store on db, as the relay does.
func (db testDB) open(ctx context.Context) (*Store, error) {
	return OpenTarget(ctx, db.URL, db.Dir)
}

// sqliteOnly skips the test in the pass on PostgreSQL.
func sqliteOnly(t testing.TB) {
	t.Helper()
	if testPG != nil {
		t.Skip("SQLite only")
	}
}

// storedBytes returns everything db holds at rest, as one text to search
// for what must not be there: SQLite's files (the WAL too), or every value
// of every table of the PostgreSQL schema.
func storedBytes(t testing.TB, db testDB) []byte {
	t.Helper()
	var all [][]byte
	if db.URL == "" {
		files, _ := filepath.Glob(filepath.Join(db.Dir, fileName+"*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b)
		}
	} else {
		all = pgValues(t, db.URL)
	}
	if len(all) == 0 {
		t.Fatal("the store holds nothing to search")
	}
	return bytes.Join(all, []byte{0})
}

// pgValues returns every value of every table of the schema at url.
func pgValues(t testing.TB, url string) [][]byte {
	t.Helper()
	conn, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tables, err := queryStrings(conn, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, table := range tables {
		rows, err := conn.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				out = append(out, bytes.Clone(v))
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// queryStrings returns the one text column of query's rows.
func queryStrings(db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
