package e2e

import (
	"fmt"
	"os"
	"testing"
)

// dashboardWASM is the dashboard build the relay embeds, relative to this package.
const dashboardWASM = "../static/dist/app.wasm"

func TestMain(m *testing.M) {
	if _, err := os.Stat(dashboardWASM); err != nil {
		fmt.Fprintf(os.Stderr, "dashboard not built: run make wasm (%v)\n", err)
		os.Exit(1)
	}
	code := m.Run()
	closeSharedBrowser()
	stopReplicaFixtures()
	os.Exit(code)
}
