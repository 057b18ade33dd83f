package service

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
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
// dashboard on another replica; the tool API on a replica that does not
// own the user answers from the owner, and leaves the user with it; when
// the owner goes, another replica owns the user at the next request, and
// the dashboard and the agent go on.
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
	if status, body := b.listTools(t, key); status != http.StatusOK {
		t.Fatalf("GET %s on B: %d %s", gateway.ToolsPath, status, body)
	}
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

	// The tool API on A and C, which do not own the user, is served by B:
	// A lists B's tools, and a call on C asks the person on A's dashboard
	// and answers with the server's result.
	_, onB := b.listTools(t, key)
	status, onA := a.listTools(t, key)
	var listed []gateway.Function
	if err := json.Unmarshal(onA, &listed); status != http.StatusOK || err != nil || !slices.ContainsFunc(listed, func(f gateway.Function) bool { return f.Function.Name == tool }) {
		t.Errorf("GET %s on A: %d %s, want 200 and a list with %s", gateway.ToolsPath, status, onA, tool)
	}
	if !bytes.Equal(onA, onB) {
		t.Errorf("GET %s lists on A\n%s\nand on B, the owner,\n%s", gateway.ToolsPath, onA, onB)
	}
	if got := apiCallAnswered(t, dash, c, key, tool, form.Example); got.Action != "accept" {
		t.Errorf("through the tool API on C, the server got %+v, want the person's accept", got)
	}
	if !b.owns(user) || a.owns(user) || c.owns(user) {
		t.Errorf("after the tool API on A and C: owned by A %v, B %v, C %v; want B alone", a.owns(user), b.owns(user), c.owns(user))
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

// listTools sends GET /api/tools to r with the agent key key and returns
// the status and body of its answer.
func (r *testReplica) listTools(t *testing.T, key string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.public.URL+gateway.ToolsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s on %s: %v", gateway.ToolsPath, r.name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s on %s: read the answer: %v", gateway.ToolsPath, r.name, err)
	}
	return resp.StatusCode, b
}

// apiCallAnswered calls tool through the tool API on r with key, answers
// the question the call raises on dash with answer (accept), and returns
// what the fixture's tool says the server got. It fails the test when no
// question comes, or the call does not answer 200 with the tool's result.
func apiCallAnswered(t *testing.T, dash *dashtest.Dashboard, r *testReplica, key, tool string, answer map[string]any) elicitfixture.Outcome {
	t.Helper()
	type answered struct {
		status int
		body   []byte
	}
	called := make(chan answered, 1)
	go func() {
		// t.Fatalf may not run here: the request's failure is a status of 0.
		req, _ := http.NewRequest(http.MethodPost, r.public.URL+gateway.ToolCallPath, strings.NewReader(`{"name":`+strconv.Quote(tool)+`,"arguments":{}}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			called <- answered{body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		called <- answered{resp.StatusCode, b}
	}()
	if err := dash.WaitUntil("the tool API call's question", func() bool { return len(dash.Asks()) > 0 }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	dash.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: dash.Asks()[0].ID, Action: wire.ActionAccept, Content: answer})
	var got answered
	select {
	case got = <-called:
	case <-time.After(dashtest.Wait):
		t.Fatalf("the tool API call on %s did not end %v after the person answered", r.name, dashtest.Wait)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(got.body, &res); got.status != http.StatusOK || err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("POST %s on %s: %d %s", gateway.ToolCallPath, r.name, got.status, got.body)
	}
	if err := dash.WaitUntil("the question gone", func() bool { return len(dash.Asks()) == 0 }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	o, err := elicitfixture.ParseOutcome(res.Content[0].Text)
	if err != nil {
		t.Fatalf("POST %s on %s: %v", gateway.ToolCallPath, r.name, err)
	}
	return o
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
