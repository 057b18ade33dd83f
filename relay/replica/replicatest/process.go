package replicatest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Build builds the switchboard command into dir with goTool ("go" when
// empty) and returns its path.
func Build(goTool, dir string) (string, error) {
	if goTool == "" {
		goTool = "go"
	}
	bin := filepath.Join(dir, "switchboard")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/switchboard-mcp/switchboard/relay/cmd/switchboard").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the relay: %v\n%s", err, out)
	}
	return bin, nil
}

// Process is one `switchboard serve` process, a replica on a PostgreSQL
// store, with SealKey.
type Process struct {
	Name     string
	Public   string // http://host:port
	Internal string // host:port, its replica address
	cmd      *exec.Cmd
	logs     *lockedBuffer
	exited   chan struct{}
}

// StartProcess starts bin as a replica named name on the store dbURL, with
// the serve flags args besides its addresses, store and data directory, and
// returns once it answers; it is stopped (SIGTERM) when the test ends, and
// its log is printed if the test failed.
func StartProcess(t testing.TB, bin, name, dbURL string, args ...string) *Process {
	t.Helper()
	p := &Process{Name: name, Public: "http://" + freeAddr(t), Internal: freeAddr(t), logs: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve", "--store", dbURL, "--data", t.TempDir(),
		"--addr", strings.TrimPrefix(p.Public, "http://"), "--replica-addr", p.Internal}, args...)...)
	p.cmd.Env = append(os.Environ(), store.SealKeyEnv+"="+SealKey)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.exited
		if t.Failed() {
			t.Logf("replica %s's log:\n%s", name, p.logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.Public + "/healthz")
		if err == nil {
			resp.Body.Close()
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("replica %s exited: %s", name, p.logs.String())
		case <-time.After(50 * time.Millisecond): // polls a process that says nothing when it listens
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s did not listen within 30 s", name)
		}
	}
}

// Kill ends the replica with SIGKILL: no shutdown, no goodbye to
// PostgreSQL.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
}

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// lockedBuffer is a log a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(b)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
