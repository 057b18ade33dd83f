package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the relay is told of its store is refused, when it is not a store,
// saying what is accepted and never quoting the password.
func TestCheckTargetSaysWhatIsAcceptedWithoutThePassword(t *testing.T) {
	sqliteOnly(t) // no database involved: once is enough
	const secret = "pw-SECRET-123"
	for _, ok := range []string{"", "postgres://u:" + secret + "@db.example/sb", "postgresql://db.example/sb?sslmode=verify-full"} {
		if err := CheckTarget(ok); err != nil {
			t.Errorf("CheckTarget refused a store it opens: %v", err)
		}
	}
	for _, bad := range []string{
		"mysql://root:" + secret + "@db.example/sb",
		"host=db.example password=" + secret,
		"postgres://u:" + secret + "@db.example:port/sb",
		"/var/lib/switchboard/switchboard.db",
	} {
		err := CheckTarget(bad)
		if err == nil {
			t.Errorf("CheckTarget took a store it cannot open")
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "postgres:// or postgresql://") || !strings.Contains(msg, "SQLite") || strings.Contains(msg, secret) {
			t.Errorf("CheckTarget: %q; want it to name what is accepted, and not the password", msg)
		}
	}
}

func TestDescribeTargetNamesTheEngineAndMasksPasswords(t *testing.T) {
	sqliteOnly(t)
	const secret = "pw-SECRET-123"
	engine, where := DescribeTarget("", "data")
	if engine != EngineSQLite || where != filepath.Join("data", "switchboard.db") {
		t.Errorf("no URL: %s %s, want SQLite at data/switchboard.db", engine, where)
	}
	engine, where = DescribeTarget("postgres://sb:"+secret+"@db.example:5432/sb?sslpassword="+secret+"&sslmode=require", "data")
	if engine != EnginePostgres || !strings.Contains(where, "postgres://sb:xxxxx@db.example:5432/sb?") || strings.Contains(where, secret) {
		t.Errorf("a PostgreSQL URL: %s %s, want the URL without its passwords", engine, where)
	}
}

// With a URL the store is in PostgreSQL and the data directory holds only
// the seal key; without, it is SQLite's file in the data directory.
func TestOpenTargetKeepsInTheDataDirectoryOnlyWhatItsEngineNeeds(t *testing.T) {
	t.Setenv(SealKeyEnv, "")
	os.Unsetenv(SealKeyEnv)
	s, db := openTest(t)
	ctx := context.Background()
	if err := s.PutServer(ctx, Server{User: "ann", ID: "a", Name: "one", URL: "http://127.0.0.1:1/mcp", Transport: "sse"}); err != nil {
		t.Fatal(err)
	}
	if regs, err := openAt(t, db).Servers(ctx, "ann"); err != nil || len(regs) != 1 {
		t.Fatalf("another store on the same target reads %v, %v; want ann's server", regs, err)
	}
	want := []string{SealKeyFile, fileName, fileName + "-shm", fileName + "-wal"}
	if db.URL != "" {
		want = []string{SealKeyFile}
	}
	entries, err := os.ReadDir(db.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the data directory holds %v, want %v", got, want)
	}
}

// A target that is not a store is refused before anything is created.
func TestOpenTargetRefusesWhatIsNotAStore(t *testing.T) {
	sqliteOnly(t)
	dir := filepath.Join(t.TempDir(), "data")
	if s, err := OpenTarget(context.Background(), "sqlite://"+dir, dir); err == nil {
		s.Close()
		t.Fatal("a sqlite:// URL opened")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was created for a store that was refused: %v", err)
	}
}
