package service

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/hub/dashtest"
	"github.com/switchboard-mcp/switchboard/relay/replica/replicatest"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// dashboardOrigin is where the tests' dashboards come from.
const dashboardOrigin = "https://dashboard.example"

// testReplica is one replica of a relay on a shared PostgreSQL schema, in
// this process: its public server and its internal address.
type testReplica struct {
	name     string
	svc      *Service
	public   *httptest.Server
	internal *http.Server
	stopOnce sync.Once
}

// startReplica starts replica name on the store at dbURL, its Config
// changed by each of opts.
func startReplica(t *testing.T, name, dbURL string, opts ...func(*Config)) *testReplica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	r := &testReplica{name: name}
	cfg := Config{DataDir: t.TempDir(), Store: dbURL, ReplicaAddr: ln.Addr().String(),
		AllowedOrigins: []string{dashboardOrigin}, AllowLoopback: true, WatchInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil))}
	for _, opt := range opts {
		opt(&cfg)
	}
	r.svc, err = New(context.Background(), cfg)
	if err != nil {
		ln.Close()
		t.Fatalf("start replica %s: %v", name, err)
	}
	r.internal = &http.Server{Handler: r.svc.InternalHandler()}
	go r.internal.Serve(ln)
	r.public = httptest.NewServer(r.svc.Handler())
	t.Cleanup(r.stop)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replica %s's log:\n%s", name, logs.String())
		}
	})
	return r
}

// stop ends the replica as a clean shutdown does.
func (r *testReplica) stop() {
	r.stopOnce.Do(func() {
		r.public.CloseClientConnections()
		r.public.Close()
		r.internal.Close()
		r.svc.Close()
	})
}

func (r *testReplica) owns(user string) bool { return r.svc.router.Owns(user) }

// sharedStore returns the URL of a fresh PostgreSQL schema for replicas,
// with the seal key they all use in the environment.
func sharedStore(t *testing.T) string {
	t.Helper()
	t.Setenv(store.SealKeyEnv, replicatest.SealKey)
	return postgresURL(t)
}

// addServer adds the server name at url to user's servers in the store at
// dbURL, as the command line does.
func addServer(t *testing.T, dbURL, user, name, url string) {
	t.Helper()
	var out bytes.Buffer
	if err := cli.Servers([]string{"add", "--store", dbURL, "--data", t.TempDir(), "--user", user, "--name", name, "--url", url}, &out); err != nil {
		t.Fatalf("servers add: %v\n%s", err, out.String())
	}
}

// dashboard opens a dashboard of user on r.
func (r *testReplica) dashboard(t *testing.T, user string) *dashtest.Dashboard {
	t.Helper()
	tok, err := r.svc.Mint(user, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return dashtest.Open(t, r.public.URL, http.Header{"Authorization": {"Bearer " + tok}, "Origin": {dashboardOrigin}})
}

// agent connects an agent to r's /mcp with key.
func (r *testReplica) agent(t *testing.T, key string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	hc := &http.Client{Transport: bearer{key: key}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: r.public.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("agent on %s: %v", r.name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Three replicas on one PostgreSQL: a user is owned by one of them, which
// the others serve through; an agent's question reaches the person's
// dashboard on another replica; when the owner goes, another replica owns
// the user at the next request, and the dashboard and the agent go on.
func TestReplicasServeAUserFromItsOwnerAndTakeItOverWhenItGoes(t *testing.T) {
	dbURL := sharedStore(t)
	fx := elicitfixture.Start(t, elicitfixture.Options{})
	form := elicitfixture.Forms[0]
	const user = "alice"
	addServer(t, dbURL, user, "asker", fx.URL())
	var out bytes.Buffer
	if err := cli.AgentKey([]string{"create", "--store", dbURL, "--data", t.TempDir(), "--user", user, "--name", "script"}, &out); err != nil {
		t.Fatalf("agent-key create: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := lines[len(lines)-1]

	a, b, c := startReplica(t, "A", dbURL), startReplica(t, "B", dbURL), startReplica(t, "C", dbURL)

	// An agent's request on B makes B the owner.
	req, _ := http.NewRequest(http.MethodGet, b.public.URL+"/api/tools", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !b.owns(user) || a.owns(user) || c.owns(user) {
		t.Fatalf("after a request on B: owned by A %v, B %v, C %v; want B alone", a.owns(user), b.owns(user), c.owns(user))
	}

	// The dashboard on A shows the user B owns, the server ready; an agent
	// on C calls a tool that asks, and the person answers on A.
	dash := a.dashboard(t, user)
	if err := dash.WaitUntil("the server ready", func() bool { return dash.State("asker") == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	agent := c.agent(t, key)
	tool := dash.ToolNamed(agent, "form_"+form.Name)
	if got, _ := elicitfixture.ParseOutcome(dash.CallAnswered(agent, tool, form.Example)); got.Action != "accept" {
		t.Errorf("the server got %+v, want the person's accept", got)
	}
	if a.owns(user) || c.owns(user) {
		t.Error("A or C took the user B owns")
	}

	// A server the command line adds reaches the owner (its notification)
	// and, through it, the dashboard on A.
	addServer(t, dbURL, user, "asker too", fx.URL())
	if err := dash.WaitUntil("the added server ready", func() bool { return dash.State("asker too") == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	if a.owns(user) || c.owns(user) {
		t.Error("A or C took the user B owns when the command line added a server")
	}

	// B goes. The dashboard on A is told the relay restarts; it connects
	// again, A owns the user now and the server is ready again.
	b.stop()
	if err := dash.Closed(); websocket.CloseStatus(err) != websocket.StatusCode(wire.CloseShuttingDown) {
		t.Fatalf("the dashboard's socket on A ended with %v, want the relay restarting", err)
	}
	dash = a.dashboard(t, user)
	if err := dash.WaitUntil("the server ready again", func() bool { return dash.State("asker") == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's new socket closed: %v", err)
	}
	if !a.owns(user) {
		t.Error("A, where the dashboard reconnected, does not own the user")
	}

	// The agent's next call, on C with the same session, goes to A, and
	// its question to the dashboard.
	if got, _ := elicitfixture.ParseOutcome(dash.CallAnswered(agent, tool, form.Example)); got.Action != "accept" {
		t.Errorf("after B went, the server got %+v, want the person's accept", got)
	}
}

// The internal address serves only what a replica forwards: a request
// without a proof, or with a dashboard's or another audience's token, is
// refused before it reaches any route.
func TestTheInternalAddressRefusesAllButReplicas(t *testing.T) {
	r := startReplica(t, "A", sharedStore(t))
	session, err := r.svc.Mint("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, header := range map[string]http.Header{
		"no proof":              {},
		"a session as proof":    {"Switchboard-Replica": {session}},
		"a session as a bearer": {"Authorization": {"Bearer " + session}},
		"a garbled proof":       {"Switchboard-Replica": {"x.y.z"}},
	} {
		for _, path := range []string{"/healthz", "/ws", "/mcp", "/api/tools"} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "http://"+r.svc.cfg.ReplicaAddr+path, nil)
			req.Header = header
			r.svc.InternalHandler().ServeHTTP(rec, req)
			if rec.Code != http.StatusForbidden {
				t.Errorf("%s, %s: %d, want 403", name, path, rec.Code)
			}
		}
	}
}
