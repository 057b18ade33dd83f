package store_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// writerEnv makes the test binary run [TestStoreWriterProcess].
const writerEnv = "SWITCHBOARD_TEST_STORE_WRITER"

// TestStoreWriterProcess is not a test: run by
// [TestAcknowledgedWritesSurviveKill9] in a process of its own, it adds
// servers to the store in the directory writerEnv names, as fast as it
// can, printing each one's id once the store acknowledged it, until killed.
func TestStoreWriterProcess(t *testing.T) {
	dir := os.Getenv(writerEnv)
	if dir == "" {
		t.Skip("run by TestAcknowledgedWritesSurviveKill9")
	}
	s, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		id := fmt.Sprint("s", i)
		if err := s.PutServer(context.Background(), store.Server{User: "ann", ID: id, Name: "server " + id, URL: "http://127.0.0.1:1/" + id, Transport: "streamable"}); err != nil {
			t.Fatal(err)
		}
		fmt.Println(id)
	}
}

// A store whose process is killed (SIGKILL) in the middle of writing keeps
// every write it acknowledged, and its database checks whole.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	store.SQLiteOnly(t)
	dir := filepath.Join(t.TempDir(), "data")
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreWriterProcess$")
	cmd.Env = append(os.Environ(), writerEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{}
	lines := bufio.NewScanner(stdout)
	for len(acked) < 200 && lines.Scan() {
		acked[strings.TrimSpace(lines.Text())] = true
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL, mid-write: the writer never pauses
		t.Fatal(err)
	}
	for lines.Scan() { // acknowledged before the kill landed
		acked[strings.TrimSpace(lines.Text())] = true
	}
	cmd.Wait()
	if len(acked) < 200 {
		t.Fatalf("the writer acknowledged %d writes before it ended, want 200", len(acked))
	}

	s, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer s.Close()
	servers, err := s.Servers(context.Background(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, srv := range servers {
		kept[srv.ID] = true
	}
	for id := range acked {
		if !kept[id] {
			t.Errorf("acknowledged server %s was lost", id)
		}
	}
	t.Logf("%d writes acknowledged, %d kept", len(acked), len(kept))

	db, err := sql.Open("sqlite", filepath.Join(dir, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check after the kill: %q, %v", check, err)
	}
}
