package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/cli"
)

// Without --store (nor $SWITCHBOARD_STORE) the commands keep the store in
// SQLite in the data directory, as they always did.
func TestWithoutStoreTheCommandsUseSQLiteInTheDataDirectory(t *testing.T) {
	t.Setenv("SWITCHBOARD_STORE", "")
	os.Unsetenv("SWITCHBOARD_STORE")
	dir := filepath.Join(t.TempDir(), "data")
	run(t, servers, "add", "--data", dir, "--user", "ann", "--name", "Files", "--url", "http://127.0.0.1:9000/mcp")
	if _, err := os.Stat(filepath.Join(dir, "switchboard.db")); err != nil {
		t.Errorf("no SQLite database in the data directory: %v", err)
	}
}

// A --store (or $SWITCHBOARD_STORE) that is not a PostgreSQL URL is refused
// before anything is created, saying what is accepted and never showing the
// password.
func TestABadStoreIsRefusedSayingWhatIsAcceptedWithoutThePassword(t *testing.T) {
	const secret = "pw-SECRET-123"
	bad := "mysql://root:" + secret + "@db.example/switchboard"
	dir := filepath.Join(t.TempDir(), "data")
	check := func(how string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: a mysql:// store was taken", how)
		}
		if msg := err.Error(); !strings.Contains(msg, "--store") || !strings.Contains(msg, "postgres://") || strings.Contains(msg, secret) {
			t.Errorf("%s: %q; want it to name --store and what is accepted, without the password", how, msg)
		}
	}
	var out bytes.Buffer
	check("--store", cli.Servers([]string{"list", "--data", dir, "--store", bad}, &out))
	t.Setenv("SWITCHBOARD_STORE", bad)
	check("$SWITCHBOARD_STORE", cli.AgentKey([]string{"list", "--data", dir}, &out))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was created for a store that was refused: %v", err)
	}
}
