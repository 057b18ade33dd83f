package conn

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// dyingServer is a go-sdk server on loopback whose tool "die" stops the
// whole HTTP server (listener and connections) while the call runs, like a
// process that crashes mid-call. died is closed when it stopped.
type dyingServer struct {
	url  string
	died chan struct{}
}

func newDyingServer(t *testing.T, transport wire.Transport, e era, resumable bool) *dyingServer {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "dying", Version: "1"}, nil)
	addEcho(server)
	d := &dyingServer{died: make(chan struct{})}
	var hs *http.Server
	server.AddTool(&mcp.Tool{Name: "die", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			go func() {
				hs.Close()
				close(d.died)
			}()
			<-ctx.Done()
			return nil, ctx.Err()
		})
	var handler http.Handler
	if transport == wire.TransportSSE {
		handler = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	} else {
		handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{Stateless: e.stateless})
		if resumable {
			handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
				&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs = &http.Server{Handler: handler}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	d.url = "http://" + ln.Addr().String() + "/mcp"
	return d
}

func TestCallFailsAsConnectionLostWithinTwoSecondsWhenTheServerDies(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport wire.Transport
		e         era
		resumable bool // the server numbers its events, so the go-sdk tries to resume
	}{
		{"streamable initialize", wire.TransportStreamable, legacyEra, false},
		{"streamable resumable", wire.TransportStreamable, legacyEra, true},
		{"streamable stateless", wire.TransportStreamable, statelessEra, false},
		{"sse", wire.TransportSSE, legacyEra, false},
	} {
		for _, agent := range []bool{false, true} {
			name := tc.name
			if agent {
				name += " agent"
			}
			t.Run(name, func(t *testing.T) { testConnectionLost(t, tc.transport, tc.e, tc.resumable, agent) })
		}
	}
}

// testConnectionLost calls the dying tool of a server as the dashboard (or
// as an agent, through the pass-through call) and checks how the call ends.
func testConnectionLost(t *testing.T, transport wire.Transport, e era, resumable, agent bool) {
	d := newDyingServer(t, transport, e, resumable)
	cfg := testConfig(d.url)
	cfg.Transport = transport
	cfg.HealthInterval = time.Hour // the health check must not be what notices
	cfg.RetryMin, cfg.RetryMax = time.Hour, time.Hour
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)

	type outcome struct {
		err error
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		var err error
		if agent {
			_, err = c.CallTool(context.Background(), &mcp.CallToolParams{Name: "die", Arguments: map[string]any{}}, nil)
		} else {
			_, err = c.CallTool(context.Background(), toolCall("die", json.RawMessage(`{}`)), nil)
		}
		done <- outcome{err, time.Now()}
	}()
	var died time.Time
	select {
	case <-d.died:
		died = time.Now()
	case <-time.After(waitFor):
		t.Fatal("the tool did not run")
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(waitFor):
		t.Fatalf("the call did not end within %v of the server dying", waitFor)
	}
	if took := o.at.Sub(died); took > 2*time.Second {
		t.Errorf("the call ended %v after the server died, want < 2s", took)
	}
	if o.err == nil {
		t.Fatal("the call succeeded")
	}
	if code := errCode(t, o.err); code != ConnectionLost {
		t.Errorf("code %s (%v), want %s", code, o.err, ConnectionLost)
	}
	if msg := o.err.Error(); strings.Contains(msg, "answered with") || strings.Contains(msg, "EOF") {
		t.Errorf("message %q", msg)
	}
	failed := r.AwaitState(wire.StateFailed)
	if !strings.Contains(failed.Error, "connection lost") {
		t.Errorf("server error %q", failed.Error)
	}
}

func TestCallCutByTheNetworkIsConnectionLostAndTheServerAnswersAgain(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "cut", Version: "1"}, nil)
	addEcho(server)
	var (
		mu    sync.Mutex
		conns = map[net.Conn]bool{}
	)
	cut := make(chan struct{})
	server.AddTool(&mcp.Tool{Name: "cut", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			for c := range conns { // like a proxy dropping every connection
				c.Close()
			}
			mu.Unlock()
			close(cut)
			return &mcp.CallToolResult{}, nil // to a connection that is gone
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{
		Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil),
		ConnState: func(c net.Conn, s http.ConnState) {
			mu.Lock()
			defer mu.Unlock()
			if s == http.StateNew {
				conns[c] = true
			} else if s == http.StateClosed || s == http.StateHijacked {
				delete(conns, c)
			}
		},
	}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	cfg := testConfig("http://" + ln.Addr().String() + "/mcp")
	cfg.HealthInterval = time.Hour
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)

	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), toolCall("cut", json.RawMessage(`{}`)), nil)
		done <- err
	}()
	<-cut
	select {
	case err := <-done:
		if code := errCode(t, err); code != ConnectionLost {
			t.Errorf("code %s (%v), want %s", code, err, ConnectionLost)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the call did not end within 2 s of its connection being cut")
	}
	// The server answers again. The cut may leave the relay's next request
	// a pooled connection the server closed (that request is lost, and the
	// session stays) or end the go-sdk's session (the relay reconnects).
	for attempt := 1; ; attempt++ {
		res, err := c.CallTool(context.Background(), toolCall("echo", json.RawMessage(`{"text":"on"}`)), nil)
		if err == nil {
			if text := res.Content[0].(*mcp.TextContent).Text; text != "on" {
				t.Fatalf("after the cut: %q", text)
			}
			return
		}
		code := errCode(t, err)
		if (code != ConnectionLost && code != NotReady) || attempt == 3 {
			t.Fatalf("after the cut, attempt %d: %v (states %s)", attempt, err, r.Summary())
		}
		if code == NotReady {
			r.AwaitState(wire.StateReady)
		}
	}
}
