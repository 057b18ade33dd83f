package service

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/pgtest"
)

// The PostgreSQL server of the tests that need one, started by the first
// of them (postgresURL) and stopped by TestMain.
var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pgServer != nil {
		pgServer.Stop()
	}
	os.Exit(code)
}

// postgresURL returns the URL of an empty schema of t's own on the tests'
// PostgreSQL server. It skips t when $SWITCHBOARD_TEST_POSTGRES is off,
// and fails it when PostgreSQL cannot run.
func postgresURL(t *testing.T) string {
	t.Helper()
	if pgtest.Off() {
		t.Skipf("PostgreSQL skipped (%s=off)", pgtest.EnvVar)
	}
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start() })
	if pgErr != nil {
		t.Fatalf("the tests on PostgreSQL cannot run: %v\n(%s=off skips them)", pgErr, pgtest.EnvVar)
	}
	return pgServer.NewSchema(t)
}

// lockedBuffer is a log the relay's goroutines write while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A relay on PostgreSQL says so at start without the password, serves,
// keeps only the seal key in the data directory (its signing key is in the
// store, for every replica), and picks up a server that
// the command line adds to its database.
func TestARelayOnPostgresPicksUpAServerTheCommandLineAdds(t *testing.T) {
	dbURL := postgresURL(t)
	dir := t.TempDir()
	t.Setenv(store.SealKeyEnv, "") // the seal key is in dir
	os.Unsetenv(store.SealKeyEnv)
	var logs lockedBuffer
	svc, err := New(context.Background(), Config{DataDir: dir, Store: dbURL, WatchInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	u, _ := url.Parse(dbURL)
	password, _ := u.User.Password()
	if l := logs.String(); !strings.Contains(l, "engine=postgres") || !strings.Contains(l, "postgres:xxxxx@"+u.Host) || strings.Contains(l, password) {
		t.Errorf("the log at start does not name PostgreSQL without its password:\n%s", l)
	}

	h := svc.Handler()
	if code, body := readyzOf(t, h); code != http.StatusOK || body.Status != "ready" {
		t.Fatalf("/readyz: %d %+v", code, body)
	}
	link, err := svc.LoginURL(context.Background(), "http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, link, nil))
	if rec.Code != http.StatusSeeOther || len(rec.Result().Cookies()) == 0 {
		t.Fatalf("the login link: %d, cookies %v; want 303 with the session cookie", rec.Code, rec.Result().Cookies())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != store.SealKeyFile {
		t.Errorf("the data directory holds %v, want only the seal key", entries)
	}

	added := make(chan string, 16)
	stop := svc.sessions.Session(DefaultLocalUser).Watch(func(id string) {
		select {
		case added <- id:
		default: // the test reads again at the next change
		}
	})
	defer stop()
	var out bytes.Buffer
	if err := cli.Servers([]string{"add", "--store", dbURL, "--data", dir, "--user", DefaultLocalUser,
		"--name", "from the CLI", "--url", "http://127.0.0.1:1/mcp"}, &out); err != nil {
		t.Fatalf("servers add: %v\n%s", err, out.String())
	}
	fields := strings.Fields(out.String())
	id := fields[len(fields)-1]
	timeout := time.After(10 * time.Second)
	for got := ""; got != id; {
		select {
		case got = <-added:
		case <-timeout:
			t.Fatalf("the relay did not pick up the server %s the command line added; its log:\n%s", id, logs.String())
		}
	}
	if srv, ok := svc.sessions.Session(DefaultLocalUser).Server(id); !ok || srv == nil {
		t.Errorf("the relay announced the server %s but does not hold it", id)
	}
}

// /readyz on PostgreSQL fails, within its bound, while another process
// holds the store's lock, and says that the database may not answer.
func TestReadyzOnPostgresFailsWhileAnotherProcessHoldsTheStoresLock(t *testing.T) {
	dbURL := postgresURL(t)
	svc, err := New(context.Background(), Config{DataDir: t.TempDir(), Store: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const lock = `SELECT pg_advisory_lock(x'53776264'::int)` // the store's (relay/store pgLockKey)
	if _, err := conn.ExecContext(context.Background(), lock); err != nil {
		t.Fatal(err)
	}
	code, body := readyzOf(t, svc.Handler())
	if code != http.StatusServiceUnavailable || !strings.Contains(body.Error, "hold its lock") || !strings.Contains(body.Error, "database does not answer") {
		t.Fatalf("while another process holds the lock: %d %+v, want 503 naming the lock and the database", code, body)
	}
	if _, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(x'53776264'::int)`); err != nil {
		t.Fatal(err)
	}
	if code, body := readyzOf(t, svc.Handler()); code != http.StatusOK {
		t.Errorf("once the lock was let go: %d %+v", code, body)
	}
}
