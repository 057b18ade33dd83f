package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// dashboardOrigin is where the tests' dashboards come from.
const dashboardOrigin = "https://dashboard.example"

// testReplica is one replica of a relay on a shared PostgreSQL schema,
// in this process: its public server and its internal address.
type testReplica struct {
	name     string
	svc      *Service
	public   *httptest.Server
	internal *http.Server
	logs     *lockedBuffer
	stopOnce sync.Once
}

func startReplica(t *testing.T, name, dbURL string) *testReplica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &testReplica{name: name, logs: &lockedBuffer{}}
	r.svc, err = New(context.Background(), Config{DataDir: t.TempDir(), Store: dbURL, ReplicaAddr: ln.Addr().String(),
		AllowedOrigins: []string{dashboardOrigin}, AllowLoopback: true, WatchInterval: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(r.logs, nil))})
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
			t.Logf("replica %s's log:\n%s", name, r.logs.String())
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

// elicitServer is an MCP server on loopback whose confirm tool asks the
// person (an elicitation) and returns what they answered.
func elicitServer(t *testing.T) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Go ahead?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %v", res.Action, res.Content["ok"])}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// testDashboard is a dashboard's socket, as the browser's store keeps it:
// the servers' states and the pending asks, from the snapshot and deltas.
type testDashboard struct {
	t       *testing.T
	c       *websocket.Conn
	frames  chan wire.Frame
	closed  chan error
	servers map[string]wire.ServerState
	asks    map[string]wire.Ask
}

func openDashboard(t *testing.T, r *testReplica, user string) *testDashboard {
	t.Helper()
	tok, err := r.svc.Mint(user, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.public.URL, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + tok}, "Origin": {dashboardOrigin}}})
	if err != nil {
		t.Fatalf("dashboard on %s: %v", r.name, err)
	}
	c.SetReadLimit(-1)
	d := &testDashboard{t: t, c: c, frames: make(chan wire.Frame, 256), closed: make(chan error, 1),
		servers: map[string]wire.ServerState{}, asks: map[string]wire.Ask{}}
	t.Cleanup(func() { c.CloseNow() })
	d.send(wire.TypeHello, "", wire.Hello{})
	go func() {
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				d.closed <- err
				return
			}
			if f, err := wire.Decode(b); err == nil {
				d.frames <- f
			}
		}
	}()
	return d
}

func (d *testDashboard) send(typ wire.FrameType, op wire.OpName, v any) {
	f, err := wire.NewFrame(typ, v)
	if err != nil {
		d.t.Fatal(err)
	}
	f.Op, f.ID = op, string(op)
	b, _ := wire.Encode(f)
	if err := d.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		d.t.Fatalf("dashboard send %s: %v", typ, err)
	}
}

// apply keeps what a frame changes.
func (d *testDashboard) apply(f wire.Frame) {
	switch f.Type {
	case wire.TypeSnapshot:
		var s wire.Snapshot
		json.Unmarshal(f.Data, &s)
		clear(d.servers)
		clear(d.asks)
		for _, srv := range s.Servers {
			d.servers[srv.Name] = srv.State
		}
		for _, a := range s.Asks {
			d.asks[a.ID] = a
		}
	case wire.TypeDelta:
		var delta wire.Delta
		json.Unmarshal(f.Data, &delta)
		for _, ch := range delta.Changes {
			switch ch.Kind {
			case wire.KindServer:
				var srv wire.Server
				if json.Unmarshal(ch.Value, &srv) == nil && srv.Name != "" {
					d.servers[srv.Name] = srv.State
				}
			case wire.KindAsk:
				if ch.Remove {
					delete(d.asks, ch.Key)
				} else {
					var a wire.Ask
					json.Unmarshal(ch.Value, &a)
					d.asks[ch.Key] = a
				}
			}
		}
	}
}

// waitUntil reads frames until ok holds, or fails the test after 10 s; a
// closed socket returns its error.
func (d *testDashboard) waitUntil(what string, ok func() bool) error {
	d.t.Helper()
	timeout := time.After(10 * time.Second)
	for !ok() {
		select {
		case f := <-d.frames:
			d.apply(f)
		case err := <-d.closed:
			return err
		case <-timeout:
			d.t.Fatalf("the dashboard did not see %s in 10 s; servers %v, asks %d", what, d.servers, len(d.asks))
		}
	}
	return nil
}

// agentClient connects an agent to a replica's /mcp with key.
func agentClient(t *testing.T, r *testReplica, key string) *mcp.ClientSession {
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

// toolNames returns the names the agent sees the confirm and echo tools by.
func toolNames(t *testing.T, agent *mcp.ClientSession) (confirm, echo string) {
	t.Helper()
	tools, err := agent.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	for _, tool := range tools.Tools {
		switch {
		case strings.HasSuffix(tool.Name, "confirm"):
			confirm = tool.Name
		case strings.HasSuffix(tool.Name, "echo"):
			echo = tool.Name
		}
	}
	if confirm == "" || echo == "" {
		t.Fatalf("the agent sees %d tools, not confirm and echo", len(tools.Tools))
	}
	return confirm, echo
}

// Three replicas on one PostgreSQL: a user is owned by one of them, which
// every other serves through; an agent's question reaches the person's
// dashboard on another replica; when the owner goes, another replica owns
// the user at the next request, and the dashboard and the agent go on.
func TestReplicasServeAUserFromItsOwnerAndTakeItOverWhenItGoes(t *testing.T) {
	dbURL := postgresURL(t)
	t.Setenv(store.SealKeyEnv, "bXktc2VhbC1rZXktMzItYnl0ZXMtbG9uZy4uLi4uLi4=") // every replica's
	upstream := elicitServer(t)
	const user = "alice"
	var out bytes.Buffer
	if err := cli.Servers([]string{"add", "--store", dbURL, "--data", t.TempDir(), "--user", user, "--name", "asker", "--url", upstream}, &out); err != nil {
		t.Fatalf("servers add: %v\n%s", err, out.String())
	}
	out.Reset()
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
	if !b.svc.router.Owns(user) || a.svc.router.Owns(user) || c.svc.router.Owns(user) {
		t.Fatalf("after a request on B: owned by A %v, B %v, C %v; want B alone", a.svc.router.Owns(user), b.svc.router.Owns(user), c.svc.router.Owns(user))
	}

	// The dashboard on A shows the user B owns, the server ready.
	dash := openDashboard(t, a, user)
	if err := dash.waitUntil("the server ready", func() bool { return dash.servers["asker"] == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's socket closed: %v", err)
	}
	if a.svc.router.Owns(user) {
		t.Error("A took the user B owns")
	}

	// An agent on C calls a tool that asks; the person answers on A.
	agent := agentClient(t, c, key)
	type callResult struct {
		res *mcp.CallToolResult
		err error
	}
	confirm, echo := toolNames(t, agent)
	called := make(chan callResult, 1)
	go func() {
		res, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: confirm, Arguments: map[string]any{}})
		called <- callResult{res, err}
	}()
	var ask wire.Ask
	dash.waitUntil("the agent's question", func() bool {
		select {
		case r := <-called:
			t.Fatalf("the agent's call ended before the person answered: %+v, %v", r.res, r.err)
		default:
		}
		for _, x := range dash.asks {
			ask = x
			return true
		}
		return false
	})
	dash.send(wire.TypeOp, wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask.ID, Action: wire.ActionAccept, Content: map[string]any{"ok": true}})
	select {
	case r := <-called:
		if r.err != nil || r.res.IsError || len(r.res.Content) == 0 || r.res.Content[0].(*mcp.TextContent).Text != "accept true" {
			t.Fatalf("the agent's call on C: %+v, %v", r.res, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent's call on C did not end 10 s after the person answered on A")
	}
	if c.svc.router.Owns(user) {
		t.Error("C took the user B owns")
	}

	// B goes. The dashboard on A is told the relay restarts; it connects
	// again and another replica owns the user, the server ready again.
	b.stop()
	if err := dash.waitUntil("the socket closed", func() bool { return false }); websocket.CloseStatus(err) != websocket.StatusCode(wire.CloseShuttingDown) {
		t.Fatalf("the dashboard's socket on A ended with %v, want the relay restarting", err)
	}
	start := time.Now()
	dash = openDashboard(t, a, user)
	if err := dash.waitUntil("the server ready again", func() bool { return dash.servers["asker"] == wire.StateReady }); err != nil {
		t.Fatalf("the dashboard's new socket closed: %v", err)
	}
	t.Logf("the server was ready again %v after the dashboard reconnected", time.Since(start))
	if !a.svc.router.Owns(user) {
		t.Error("A, where the dashboard reconnected, does not own the user")
	}

	// The agent's next call, on C, succeeds through the new owner.
	res, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: echo, Arguments: map[string]any{"text": "still here"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "still here" {
		t.Fatalf("the agent's call after B went: %+v, %v", res, err)
	}
}
