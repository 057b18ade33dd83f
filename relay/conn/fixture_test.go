package conn

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn/conntest"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

// era is the protocol generation a fixture server speaks.
type era struct {
	name      string
	stateless bool   // a stateless handler serves 2026-07-28; a stateful one the initialize era
	protocol  string // what the connection negotiates
}

var (
	legacyEra    = era{name: "initialize", protocol: "2025-11-25"}
	statelessEra = era{name: "stateless", stateless: true, protocol: "2026-07-28"}
	eras         = []era{legacyEra, statelessEra}
)

// fixture is a real go-sdk MCP server on a 127.0.0.1 port that can be
// stopped and started again on the same port.
type fixture struct {
	t       *testing.T
	server  *mcp.Server
	handler http.Handler
	addr    string
	url     string
	hs      *http.Server
}

func newFixture(t *testing.T, e era, opts *mcp.ServerOptions) *fixture {
	t.Helper()
	return newFixtureOf(t, e, &mcp.Implementation{Name: "fixture", Title: "Fixture", Version: "1.2.3"}, opts)
}

// newFixtureOf is newFixture with the server's identity.
func newFixtureOf(t *testing.T, e era, impl *mcp.Implementation, opts *mcp.ServerOptions) *fixture {
	t.Helper()
	server := mcp.NewServer(impl, opts)
	f := &fixture{
		t:      t,
		server: server,
		handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{Stateless: e.stateless, PropagateRequestCancellation: true}),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	f.url = "http://" + f.addr + "/mcp"
	f.serve(ln)
	t.Cleanup(f.stop)
	return f
}

func (f *fixture) serve(ln net.Listener) {
	f.hs = &http.Server{Handler: f.handler}
	go f.hs.Serve(ln)
}

// stop closes the listener and every connection, like a process exiting.
func (f *fixture) stop() {
	if f.hs != nil {
		f.hs.Close()
		f.hs = nil
	}
}

// restart listens on the same port again.
func (f *fixture) restart() {
	f.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		ln, err := net.Listen("tcp", f.addr)
		if err == nil {
			f.serve(ln)
			return
		}
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			f.t.Fatalf("listen again on %s: %v", f.addr, err)
		}
		runtime.Gosched()
	}
}

// echoTool is a tool returning its text argument.
func addEcho(s *mcp.Server) {
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo text."}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
}

// addNamedTool adds a tool without arguments that answers with its name.
func addNamedTool(s *mcp.Server, name string) {
	mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
	})
}

// recorder collects the states a connection reports.
type recorder = conntest.Recorder[State]

func newRecorder(t *testing.T) *recorder { return conntest.NewRecorder(t, facts) }

// facts is what a recorder reads of a state.
func facts(s State) conntest.Facts {
	f := conntest.Facts{State: s.State, Error: s.Error}
	if s.Auth != nil {
		f.AuthError = s.Auth.Error
	}
	return f
}

// testConfig is a config with short intervals for tests.
func testConfig(url string) Config {
	return Config{
		ID:             "srv1",
		Name:           "Fixture",
		URL:            url,
		HTTPClient:     netguard.Policy{AllowLoopback: true}.Client(0),
		HealthInterval: 200 * time.Millisecond,
		RetryMin:       50 * time.Millisecond,
		RetryMax:       400 * time.Millisecond,
	}
}

// start connects to url and closes the connection when the test ends.
func start(t *testing.T, cfg Config) (*Conn, *recorder) {
	t.Helper()
	r := newRecorder(t)
	c := Start(cfg, r.Report)
	t.Cleanup(func() { c.Close() })
	return c, r
}

// startReady connects to f and waits until it is ready.
func startReady(t *testing.T, f *fixture) (*Conn, *recorder, State) {
	t.Helper()
	c, r := start(t, testConfig(f.url))
	return c, r, r.AwaitState(wire.StateReady)
}

// listsOf returns the lists of s, empty before a discovery.
func listsOf(s State) *Lists {
	if s.Lists == nil {
		return &Lists{}
	}
	return s.Lists
}

// toolNames lists the names of tools.
func toolNames(tools []*mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// errCode returns the code of an *Error, or fails.
func errCode(t *testing.T, err error) Code {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e.Code
}

// ourGoroutines counts goroutines running code of this package, other than
// tests.
func ourGoroutines() int { return countGoroutines(runsOurCode) }

// countGoroutines counts the goroutines whose stack lines satisfy ok.
func countGoroutines(ok func(lines []string) bool) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if ok(strings.Split(g, "\n")) {
			count++
		}
	}
	return count
}

// runsOurCode reports whether a goroutine's stack has a frame of this
// package's non-test code: a function line naming the package followed by a
// file line outside a _test.go file.
func runsOurCode(lines []string) bool {
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], "switchboard/relay/conn.") && !strings.Contains(lines[i+1], "_test.go:") {
			return true
		}
	}
	return false
}

// awaitNoGoroutines waits until no goroutine runs code of this package.
func awaitNoGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for ourGoroutines() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of package conn still run", ourGoroutines())
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline: goroutine exit has no event
	}
}

// toolCall is the params of a call of tool name with args, a JSON object
// (nil for none).
func toolCall(name string, args json.RawMessage) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}
