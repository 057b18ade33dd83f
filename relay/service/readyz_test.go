package service

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/switchboard-mcp/switchboard/relay/store/disktest"
)

// readyzOf asks h's /readyz and returns its status and body.
func readyzOf(t *testing.T, h http.Handler) (int, readiness) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/readyz", nil))
	var body readiness
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("/readyz answered %q: %v", rec.Body, err)
	}
	return rec.Code, body
}

// /readyz fails naming a full disk while the relay's disk is full, and
// recovers once space returns; /healthz stays ok all along.
func TestReadyzNamesAFullDiskAndRecovers(t *testing.T) {
	disk := disktest.Mount(t, "4m")
	svc, err := New(context.Background(), Config{DataDir: filepath.Join(disk.Dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h := svc.Handler()
	if code, body := readyzOf(t, h); code != http.StatusOK || body.Status != "ready" {
		t.Fatalf("before the disk filled: %d %+v", code, body)
	}
	disk.Fill()
	code, body := readyzOf(t, h)
	if code != http.StatusServiceUnavailable || body.Status != "not ready" || !strings.Contains(body.Error, "the relay's disk is full") {
		t.Fatalf("on a full disk: %d %+v, want 503 naming the disk", code, body)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/healthz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("/healthz on a full disk: %d, want 200: the process is alive", rec.Code)
	}
	disk.Free()
	if code, body := readyzOf(t, h); code != http.StatusOK || body.Status != "ready" {
		t.Fatalf("once space returned: %d %+v", code, body)
	}
}

// lockerEnv makes the test binary run [TestStoreLockerProcess].
const lockerEnv = "SWITCHBOARD_TEST_LOCK_STORE"

// TestStoreLockerProcess is not a test: run by
// [TestReadyzFailsWhileAnotherProcessLocksTheStore] in a process of its
// own, it takes the write lock of the database named by lockerEnv, says
// "locked" and holds it until its standard input closes.
func TestStoreLockerProcess(t *testing.T) {
	path := os.Getenv(lockerEnv)
	if path == "" {
		t.Skip("run by TestReadyzFailsWhileAnotherProcessLocksTheStore")
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	conn.ExecContext(context.Background(), "ROLLBACK")
}

// /readyz fails, within its bound, while another process holds the
// store's write lock, and recovers once it lets go.
func TestReadyzFailsWhileAnotherProcessLocksTheStore(t *testing.T) {
	svc, err := newService(t, Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := svc.Handler()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreLockerProcess$")
	cmd.Env = append(os.Environ(), lockerEnv+"="+filepath.Join(svc.cfg.DataDir, "switchboard.db"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the locking process said %q: %v", line, err)
	}
	code, body := readyzOf(t, h)
	if code != http.StatusServiceUnavailable || !strings.Contains(body.Error, "hold its lock") {
		t.Fatalf("while another process holds the lock: %d %+v, want 503 saying the store is locked", code, body)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the locking process: %v", err)
	}
	if code, body := readyzOf(t, h); code != http.StatusOK {
		t.Fatalf("once the lock was let go: %d %+v", code, body)
	}
}
