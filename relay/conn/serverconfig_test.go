package conn

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// sseServer is an SSE-only MCP server with the echo tool; it counts the
// requests it gets.
func sseServer(t *testing.T, requests *atomic.Int32) *httptest.Server {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "sse-only", Version: "1"}, nil)
	addEcho(server)
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs
}

func TestAutoTransportFallsBackToSSEAndSaysSo(t *testing.T) {
	var n atomic.Int32
	hs := sseServer(t, &n)
	cfg := testConfig(hs.URL)
	cfg.Transport = wire.TransportAuto
	c, r := start(t, cfg)
	ready := r.AwaitState(wire.StateReady)
	if ready.TransportInUse != wire.TransportSSE || len(ready.Lists.Tools) != 1 {
		t.Fatalf("ready %+v", ready)
	}
	if _, err := c.CallTool(t.Context(), toolCall("echo", []byte(`{"text":"over sse"}`)), nil); err != nil {
		t.Fatal(err)
	}
}

func TestAutoTransportUsesStreamableHTTPFirst(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	addEcho(f.server)
	cfg := testConfig(f.url)
	cfg.Transport = wire.TransportAuto
	_, r := start(t, cfg)
	if ready := r.AwaitState(wire.StateReady); ready.TransportInUse != wire.TransportStreamable {
		t.Fatalf("in use %q, want streamable", ready.TransportInUse)
	}
}

func TestWrongExplicitTransportFailsWithAHintAndStopsRetrying(t *testing.T) {
	var n atomic.Int32
	hs := sseServer(t, &n)
	cfg := testConfig(hs.URL)
	cfg.Transport = wire.TransportStreamable
	c, r := start(t, cfg)
	failed := r.AwaitState(wire.StateFailed)
	if !strings.Contains(failed.Error, "switch the transport to SSE or auto") || !strings.Contains(failed.Error, "not retrying") {
		t.Fatalf("error %q, want a hint to switch and no retry", failed.Error)
	}
	// Retry asks again, once: the count grows by one attempt's requests only.
	before := n.Load()
	c.Retry()
	r.AwaitState(wire.StateConnecting)
	again := r.AwaitState(wire.StateFailed)
	if again.Error != failed.Error {
		t.Errorf("after Retry: %q", again.Error)
	}
	if after := n.Load(); after-before > 2 {
		t.Errorf("%d requests after one Retry; the connection retried on its own", after-before)
	}
}

func TestUnauthorizedNeverFallsBackToSSE(t *testing.T) {
	var sseHits atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			sseHits.Add(1)
		}
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer hs.Close()
	cfg := testConfig(hs.URL)
	cfg.Transport = wire.TransportAuto
	_, r := start(t, cfg)
	r.AwaitState(wire.StateFailed)
	if sseHits.Load() != 0 {
		t.Error("a 401 made the connection try SSE")
	}
}

func TestHeadersGoUpstreamToTheServersOriginOnly(t *testing.T) {
	var elsewhere atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Store(r.Header.Get("X-Api-Key"))
		http.NotFound(w, r)
	}))
	defer other.Close()
	f := newFixture(t, legacyEra, nil)
	addEcho(f.server)
	inner := f.handler
	f.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-123" {
			http.Error(w, "missing key", http.StatusUnauthorized)
			return
		}
		if r.URL.Query().Get("bounce") != "" {
			http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
			return
		}
		inner.ServeHTTP(w, r)
	})
	f.stop()
	f.restart()
	cfg := testConfig(f.url)
	cfg.Headers = map[string]string{"X-Api-Key": "k-123"}
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)
	if _, err := c.CallTool(t.Context(), toolCall("echo", []byte(`{"text":"with the key"}`)), nil); err != nil {
		t.Fatal(err)
	}

	// A redirect to another origin does not carry the header.
	resp, err := c.http.Get(f.url + "?bounce=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if v, _ := elsewhere.Load().(string); v != "" {
		t.Errorf("the header followed a redirect to another origin: %q", v)
	}
	for _, s := range r.All() {
		if strings.Contains(s.Error, "k-123") {
			t.Errorf("a state carries the header value: %q", s.Error)
		}
	}
}

func TestConnectionWithoutTheGuardedClientFailsClosed(t *testing.T) {
	var n atomic.Int32
	hs := sseServer(t, &n)
	cfg := testConfig(hs.URL)
	cfg.HTTPClient = nil
	_, r := start(t, cfg)
	failed := r.AwaitState(wire.StateFailed)
	if !strings.Contains(failed.Error, "guarded HTTP client") || n.Load() != 0 {
		t.Fatalf("error %q after %d requests", failed.Error, n.Load())
	}
}

func TestAddressRefusedByTheGuardIsNotRetried(t *testing.T) {
	var n atomic.Int32
	hs := sseServer(t, &n)
	cfg := testConfig(hs.URL)
	cfg.HTTPClient = netguard.Policy{}.Client(0) // loopback refused
	_, r := start(t, cfg)
	failed := r.AwaitState(wire.StateFailed)
	if !strings.Contains(failed.Error, "network guard") || !strings.Contains(failed.Error, "not retrying") {
		t.Fatalf("error %q", failed.Error)
	}
}

func TestConnectionGivesUpAfterItsRetryAttempts(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer hs.Close()
	cfg := testConfig(hs.URL)
	cfg.RetryAttempts = 2
	_, r := start(t, cfg)
	gave := r.Await("gave up", func(s State) bool { return strings.Contains(s.Error, "gave up after 2 attempts") })
	if gave.State != wire.StateFailed {
		t.Fatalf("state %s", gave.State)
	}
}
