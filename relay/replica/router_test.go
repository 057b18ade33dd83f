package replica

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/switchboard-mcp/switchboard/relay/replica/replicatest"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/pgtest"
)

var pg *pgtest.Server

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if pgtest.Off() {
		fmt.Printf("the replica tests skipped (%s=off)\n", pgtest.EnvVar)
		return 0
	}
	var err error
	if pg, err = pgtest.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "the replica tests need PostgreSQL: %v\n", err)
		return 1
	}
	defer pg.Stop()
	return m.Run()
}

// users records what a router starts and ends.
type users struct {
	mu       sync.Mutex
	owned    map[string]bool
	busy     map[string]bool
	released chan string
}

func newUsers() *users {
	return &users{owned: map[string]bool{}, busy: map[string]bool{}, released: make(chan string, 16)}
}

func (u *users) Own(_ context.Context, user string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.owned[user] = true
	return nil
}

func (u *users) Busy(user string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.busy[user]
}

func (u *users) setBusy(user string, busy bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.busy[user] = busy
}

func (u *users) Release(user string) {
	u.mu.Lock()
	delete(u.owned, user)
	u.mu.Unlock()
	u.released <- user
}

// startRouter starts a router at addr on a fresh store of dbURL.
func startRouter(t *testing.T, dbURL, addr string, idle time.Duration) (*Router, *users) {
	t.Helper()
	t.Setenv(store.SealKeyEnv, replicatest.SealKey)
	st, err := store.OpenPostgres(context.Background(), dbURL, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	u := newUsers()
	r, err := Start(context.Background(), Config{Store: st, Addr: addr, Users: u, Proofs: NewProofs(key, "test"), IdleAfter: idle})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, u
}

func route(t *testing.T, r *Router, user string) Route {
	t.Helper()
	rt, err := r.Route(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestTheFirstReplicaAskedOwnsTheUserAndTheOtherRoutesToIt(t *testing.T) {
	dbURL := pg.NewSchema(t)
	a, aUsers := startRouter(t, dbURL, "10.0.0.1:9090", time.Hour)
	b, bUsers := startRouter(t, dbURL, "10.0.0.2:9090", time.Hour)
	if rt := route(t, a, "alice"); !rt.Local() {
		t.Fatalf("A, asked first, routes alice to %s", rt.Owner)
	} else {
		rt.Done()
	}
	if rt := route(t, b, "alice"); rt.Local() || rt.Owner != "10.0.0.1:9090" {
		t.Fatalf("B routes alice to %+v, want A", rt)
	}
	if !aUsers.owned["alice"] || bUsers.owned["alice"] {
		t.Errorf("alice's session started on A %v, B %v; want A only", aUsers.owned["alice"], bUsers.owned["alice"])
	}
}

func TestAnIdleUserIsLetGoAndABusyOneKept(t *testing.T) {
	dbURL := pg.NewSchema(t)
	const idle = 200 * time.Millisecond
	a, aUsers := startRouter(t, dbURL, "10.0.0.1:9090", idle)
	b, _ := startRouter(t, dbURL, "10.0.0.2:9090", time.Hour)
	route(t, a, "alice").Done()
	busy := route(t, a, "bob") // a socket that stays open
	route(t, a, "carol").Done()
	aUsers.setBusy("carol", true) // a chat turn of hers runs
	select {
	case got := <-aUsers.released:
		if got != "alice" {
			t.Fatalf("A let %s go, want alice", got)
		}
	case <-time.After(10 * idle):
		t.Fatal("A kept idle alice")
	}
	if rt := route(t, b, "alice"); !rt.Local() {
		t.Errorf("after A let alice go, B routes her to %s", rt.Owner)
	}
	if !a.Owns("bob") {
		t.Error("A let bob go while a request of his was open")
	}
	if !a.Owns("carol") {
		t.Error("A let carol go while her work ran")
	}
	busy.Done()
	aUsers.setBusy("carol", false)
	for carol := false; !carol; {
		select {
		case got := <-aUsers.released:
			carol = got == "carol"
		case <-time.After(10 * idle):
			t.Fatal("A kept carol once her work ended")
		}
	}
}

func TestAReplicaThatLosesItsLocksLetsItsUsersGoAndTakesUsersAgain(t *testing.T) {
	dbURL := pg.NewSchema(t)
	a, aUsers := startRouter(t, dbURL, "10.0.0.1:9090", time.Hour)
	route(t, a, "alice").Done()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// PostgreSQL ends the locks' connection, as when the network drops.
	var pid int
	if err := db.QueryRow(`SELECT pid FROM pg_stat_activity WHERE application_name LIKE '%' || $1`, "10.0.0.1:9090").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the locks' backend did not end within 5 s")
		}
		time.Sleep(10 * time.Millisecond) // polls PostgreSQL's own state: no event tells
	}
	a.check(context.Background())
	select {
	case got := <-aUsers.released:
		if got != "alice" {
			t.Fatalf("A let %s go, want alice", got)
		}
	default:
		t.Fatal("A kept alice after it lost her lock")
	}
	if a.Owns("alice") {
		t.Error("A says it owns alice after it lost her lock")
	}
	if rt := route(t, a, "alice"); !rt.Local() {
		t.Errorf("with its locks back, A routes alice to %s", rt.Owner)
	}
}
