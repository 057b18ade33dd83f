// Package stdiobin builds the stdio fixture command (e2e/stdiofixture) for
// the tests that run it as a configured stdio server.
package stdiobin

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// build builds the command once per test binary.
var build = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "stdiofixture")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "stdiofixture")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/switchboard-mcp/switchboard/e2e/stdiofixture").CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: out}
	}
	return bin, nil
})

// Path returns the built command's path, failing t when it cannot be built.
func Path(t testing.TB) string {
	t.Helper()
	bin, err := build()
	if err != nil {
		t.Fatalf("build the stdio fixture: %v", err)
	}
	return bin
}

// buildError is a failed build with the compiler's output.
type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }
