// Package pgtest runs a throwaway PostgreSQL server for tests: Start
// creates a cluster in a temporary directory (as the postgres user when
// the tests run as root, since PostgreSQL refuses to run as root), listening
// on a free port of 127.0.0.1 with its socket in that directory; Stop ends
// the server and removes the directory.
//
// Tests share one database, switchboard; NewSchema gives each an empty
// schema of its own, named by the search_path of the URL it returns, which
// is much faster than a database each.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Install says how to get the server binaries.
const Install = "install PostgreSQL (Debian/Ubuntu: apt-get install postgresql)"

// runAsUser runs the server when the tests run as root.
const runAsUser = "postgres"

// Server is a running PostgreSQL server of its own.
type Server struct {
	dir      string // holds the cluster, its socket, log and password file
	bin      string // the directory of initdb and pg_ctl
	asUser   string // the user the server runs as; empty for the tests' own
	port     int
	password string
	admin    *sql.DB // to the postgres database, to create and drop databases
	next     atomic.Int64
}

// Start creates and starts a server. It fails naming what to install when
// the PostgreSQL binaries cannot be found.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "switchboard-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{dir: dir, bin: bin, password: hex.EncodeToString(randomBytes(16))}
	if err := s.start(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// binDir finds initdb on PATH, else in the newest /usr/lib/postgresql/*/bin
// (Debian keeps it off PATH).
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return version(a) - version(b) })
	if len(found) == 0 {
		return "", fmt.Errorf("pgtest: no PostgreSQL server found (initdb is neither on PATH nor in /usr/lib/postgresql/*/bin): %s", Install)
	}
	return filepath.Dir(found[len(found)-1]), nil
}

// version reads the major version out of /usr/lib/postgresql/N/bin/initdb.
func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

func (s *Server) start() error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup(runAsUser)
		if err != nil {
			return fmt.Errorf("pgtest: PostgreSQL does not run as root and there is no user %q to run it as: %w", runAsUser, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(s.dir, uid, gid); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
		s.asUser = runAsUser
	}
	pwfile := filepath.Join(s.dir, "password")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o644); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	data := filepath.Join(s.dir, "data")
	if err := s.run("initdb", "-D", data, "-U", "postgres", "--pwfile", pwfile,
		"--auth", "scram-sha-256", "-E", "UTF8", "--locale", "C.UTF-8", "--no-sync"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	s.port = port
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, s.dir)
	if err := s.run("pg_ctl", "-D", data, "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("%w\nserver log:\n%s", err, log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	postgres, err := sql.Open("pgx", s.url("postgres", ""))
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer postgres.Close()
	if _, err := postgres.ExecContext(ctx, `CREATE DATABASE `+database); err != nil {
		return fmt.Errorf("pgtest: create the test database: %w", err)
	}
	s.admin, err = sql.Open("pgx", s.url(database, ""))
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}

// run runs one of the server's programs, as the server's user.
func (s *Server) run(name string, args ...string) error {
	prog := filepath.Join(s.bin, name)
	cmd := exec.Command(prog, args...)
	if s.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.asUser, "--", prog}, args...)...)
	}
	cmd.Dir = s.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: %s: %w\n%s", name, err, out)
	}
	return nil
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// database is the database the tests share.
const database = "switchboard"

// url is the connection URL of database on the server, with schema first
// on the search path unless empty.
func (s *Server) url(database, schema string) string {
	q := url.Values{"sslmode": {"disable"}}
	if schema != "" {
		q.Set("search_path", schema)
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword("postgres", s.password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), Path: "/" + database, RawQuery: q.Encode()}
	return u.String()
}

// NewSchema creates an empty schema for t, drops it with all it holds
// when t ends, and returns the URL of the test database with that schema
// as its search path.
func (s *Server) NewSchema(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.next.Add(1))
	if _, err := s.admin.Exec(`CREATE SCHEMA ` + name); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := s.admin.Exec(`DROP SCHEMA ` + name + ` CASCADE`); err != nil {
			t.Errorf("pgtest: drop schema: %v", err)
		}
	})
	return s.url(database, name)
}

// URL is the connection URL of the test database with its default search
// path (the public schema), for a program that has the server to itself,
// as the bench does; tests take a schema each (NewSchema).
func (s *Server) URL() string { return s.url(database, "") }

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() error {
	var errs []error
	if s.admin != nil {
		s.admin.Close()
	}
	if s.port != 0 {
		errs = append(errs, s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop"))
	}
	errs = append(errs, os.RemoveAll(s.dir))
	return errors.Join(errs...)
}

// Off reports whether $SWITCHBOARD_TEST_POSTGRES asks to skip the tests on
// PostgreSQL.
func Off() bool { return strings.EqualFold(os.Getenv(EnvVar), "off") }

// Only reports whether $SWITCHBOARD_TEST_POSTGRES asks to run only the
// tests on PostgreSQL.
func Only() bool { return strings.EqualFold(os.Getenv(EnvVar), "only") }

// EnvVar chooses the engines of the store's tests: "off" skips PostgreSQL,
// "only" skips SQLite; unset runs both.
const EnvVar = "SWITCHBOARD_TEST_POSTGRES"

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
