// Package replicas tests a relay of three replicas on one PostgreSQL as an
// operator runs it: the switchboard binary, three processes on loopback,
// set up with its own commands, and one of them killed with SIGKILL.
package replicas

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/hub/dashtest"
	"github.com/switchboard-mcp/switchboard/relay/replica"
	"github.com/switchboard-mcp/switchboard/relay/replica/replicatest"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/pgtest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The binary under test and the PostgreSQL server, made by TestMain.
var (
	binary string
	pg     *pgtest.Server
)

// sealKey is every replica's seal key.
const sealKey = replicatest.SealKey

// dashboardOrigin is where the test's dashboards come from.
const dashboardOrigin = "https://dashboard.example"

// failoverBound is how soon after its owner dies a user must be served again.
const failoverBound = 5 * time.Second

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "switchboard-replicas-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = replicatest.Build(os.Getenv("GO"), dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if pg, err = pgtest.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "the replica tests need PostgreSQL: %v\n", err)
		return 1
	}
	defer pg.Stop()
	return m.Run()
}

// switchboard runs a command of the binary on the test's store and
// returns what it printed.
func switchboard(t *testing.T, dbURL string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append(args, "--store", dbURL, "--data", t.TempDir())...)
	cmd.Env = append(os.Environ(), store.SealKeyEnv+"="+sealKey)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("switchboard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// startReplica starts a replica process named name on dbURL.
func startReplica(t *testing.T, name, dbURL string) *replicatest.Process {
	t.Helper()
	return replicatest.StartProcess(t, binary, name, dbURL, "--allowed-origins", dashboardOrigin)
}

// connectAgent connects an agent to r's /mcp with key.
func connectAgent(t *testing.T, r *replicatest.Process, key string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	hc := &http.Client{Transport: bearer(key)}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: r.Public + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("agent on %s: %v", r.Name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// bearer sends an agent key with every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// signIn spends a login link the command line made and returns the
// session cookie the replica at base set.
func signIn(t *testing.T, link string) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Value != "" {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("the login link answered %d without a session cookie", resp.StatusCode)
	return ""
}

// A person's dashboard on A, their user owned by B, an agent on C: the
// agent's question is answered on A. B is killed: within failoverBound
// another replica owns the user and the dashboard shows the server ready
// again without a reload, the agent's next call (same session) succeeds,
// and the registration, key and session are all still there.
func TestThreeReplicasSurviveTheOwnersKill(t *testing.T) {
	dbURL := pg.NewSchema(t)
	t.Setenv(store.SealKeyEnv, sealKey) // for the test's own look at the store
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	form := elicitfixture.Forms[0]
	const user = "local" // the command line's default user
	switchboard(t, dbURL, "servers", "add", "--name", "asker", "--url", fx.URL())
	lines := strings.Split(strings.TrimSpace(switchboard(t, dbURL, "agent-key", "create", "--name", "script")), "\n")
	key := lines[len(lines)-1]

	a, b, c := startReplica(t, "A", dbURL), startReplica(t, "B", dbURL), startReplica(t, "C", dbURL)
	st, err := store.OpenTarget(context.Background(), dbURL, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// An agent's request on B makes B the owner.
	req, _ := http.NewRequest(http.MethodGet, b.Public+"/api/tools", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := replicatest.OwnerOf(t, st, user); got != b.Internal {
		t.Fatalf("after a request on B the owner is %q, want B (%s)", got, b.Internal)
	}

	// The person signs in on A (a link the command line made); their
	// dashboard there shows the server B holds, and answers the question
	// of an agent's call on C.
	cookie := signIn(t, strings.TrimSpace(switchboard(t, dbURL, "login", "--addr", strings.TrimPrefix(a.Public, "http://"))))
	header := http.Header{"Cookie": {cookie}, "Origin": {dashboardOrigin}}
	dash := dashtest.Open(t, a.Public, header)
	if err := dash.WaitUntil("the server ready", func() bool { return dash.State("asker") == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	agent := connectAgent(t, c, key)
	tool := dash.ToolNamed(agent, "form_"+form.Name)
	if got, _ := elicitfixture.ParseOutcome(dash.CallAnswered(agent, tool, form.Example)); got.Action != "accept" {
		t.Errorf("the server got %+v, want the person's accept", got)
	}
	if got := replicatest.OwnerOf(t, st, user); got != b.Internal {
		t.Errorf("the owner moved to %q while B lived", got)
	}

	// B is killed while an agent's call waits for the person. The call
	// ends saying the relay restarted; the dashboard on A is told the relay
	// restarts and reconnects, as the browser's does; the server is ready
	// again soon.
	interrupted := make(chan error, 1)
	go func() {
		_, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		interrupted <- err
	}()
	if err := dash.WaitUntil("the agent's question", func() bool { return len(dash.Asks()) > 0 }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	killed := time.Now()
	b.Kill(t)
	select {
	case err := <-interrupted:
		if err == nil || !strings.Contains(err.Error(), replica.Interrupted) {
			t.Errorf("the call B ran when it was killed ended with %v, want %q", err, replica.Interrupted)
		}
	case <-time.After(dashtest.Wait):
		t.Errorf("the call B ran when it was killed did not end within %v", dashtest.Wait)
	}
	if err := dash.Closed(); websocket.CloseStatus(err) != websocket.StatusCode(wire.CloseShuttingDown) {
		t.Fatalf("the dashboard's socket on A ended with %v, want the relay restarting", err)
	}
	dash = dashtest.Open(t, a.Public, header)
	if err := dash.WaitUntil("the server ready again", func() bool { return dash.State("asker") == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's new socket closed: %v", err)
	}
	took := time.Since(killed)
	t.Logf("served again %v after B's kill", took.Round(time.Millisecond))
	if took > failoverBound {
		t.Errorf("the user was served again %v after B's kill, want within %v", took, failoverBound)
	}
	if got := replicatest.OwnerOf(t, st, user); got != a.Internal && got != c.Internal {
		t.Errorf("after B's kill the owner is %q, want A or C", got)
	}

	// The agent's next call, same session, succeeds; its question is
	// answered on the dashboard.
	if got, _ := elicitfixture.ParseOutcome(dash.CallAnswered(agent, tool, form.Example)); got.Action != "accept" {
		t.Errorf("after B's kill the server got %+v, want the person's accept", got)
	}
	if out := switchboard(t, dbURL, "servers", "list"); !strings.Contains(out, "asker") {
		t.Errorf("the registration is gone after B's kill:\n%s", out)
	}
	if out := switchboard(t, dbURL, "agent-key", "list"); !strings.Contains(out, "script") {
		t.Errorf("the agent key is gone after B's kill:\n%s", out)
	}
}
