package service

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/metrics/metricstest"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// echoServer is an MCP server on loopback with an echo tool; it keeps the
// traceparent of each tools/call request it receives.
type echoServer struct {
	*httptest.Server
	mu           sync.Mutex
	traceparents []string
}

func newEchoServer(t *testing.T) *echoServer {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	e := &echoServer{}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			e.mu.Lock()
			e.traceparents = append(e.traceparents, r.Header.Get("Traceparent"))
			e.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(e.Close)
	return e
}

// otlpReceiver is an OTLP/HTTP trace endpoint that keeps the spans it is sent.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	o := &otlpReceiver{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if r.URL.Path != "/v1/traces" || err != nil {
			t.Errorf("OTLP receiver: %s %s: %v", r.Method, r.URL.Path, err)
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				o.spans = append(o.spans, ss.Spans...)
			}
		}
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(b)
	}))
	t.Cleanup(o.Close)
	return o
}

// A real relay with a real MCP server on loopback: a person's call from a
// dashboard and an agent's call through /mcp move the metrics, and their
// spans reach an OTLP receiver with their parents: the op and the agent
// request; the MCP server hears the tool call's trace context.
func TestCallsMoveTheMetricsAndTheirSpansJoinTheServersTrace(t *testing.T) {
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	ctx := context.Background()
	stopTracing, err := tracing.Setup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stopTracing(ctx)
	echo := newEchoServer(t)
	before := metricstest.Scrape(t)

	svc, err := newService(t, Config{AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	ann := svc.sessions.Session(DefaultLocalUser)
	added, err := ann.Add(ctx, wire.AddServerArgs{Name: "Echo", URL: echo.URL})
	if err != nil {
		t.Fatal(err)
	}
	awaitReady(t, ann, added.ID)

	// A person's call, as a dashboard's op.
	sub := ann.Subscribe(wire.Hello{})
	defer sub.Close()
	data, _ := json.Marshal(wire.CallToolArgs{Server: added.ID, Name: "echo", Arguments: json.RawMessage(`{"text":"from the dashboard"}`)})
	sub.HandleOp(wire.Frame{Type: wire.TypeOp, ID: "c1", Op: wire.OpCallTool, Data: data})
	if f := awaitReply(t, sub, "c1"); f.Error != nil {
		t.Fatalf("dashboard call: %+v", f.Error)
	}

	// An agent's call, through the agent endpoint.
	_, key, err := svc.store.CreateAgentKey(ctx, store.NewAgentKey{User: DefaultLocalUser, Name: "test", AllServers: true})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(svc.Handler())
	defer relay.Close()
	var health map[string]string
	if resp, err := http.Get(relay.URL + "/healthz"); err != nil {
		t.Fatal(err)
	} else {
		json.NewDecoder(resp.Body).Decode(&health)
		resp.Body.Close()
	}
	if health["status"] != "ok" || health["version"] != buildinfo.Version() {
		t.Errorf("/healthz %v, want ok and this build's version", health)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	// 2025-11-25 has sessions, which the gateway's session count counts;
	// a 2026-07-28 agent opens none.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: relay.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: added.ID + "__echo", Arguments: map[string]any{"text": "from an agent"}})
	if err != nil || res.IsError {
		t.Fatalf("agent call: %v %+v", err, res)
	}
	cs.Close()

	after := metricstest.Scrape(t)
	moved := func(name string, labels map[string]string) float64 { return after.Moved(before, name, labels) }
	for _, route := range []string{metrics.RouteDashboard, metrics.RouteAgent} {
		labels := map[string]string{"route": route, "kind": "tool", "outcome": "ok"}
		if got := moved("switchboard_calls_total", labels); got != 1 {
			t.Errorf("switchboard_calls_total%v moved by %v, want 1", labels, got)
		}
		if got := moved("switchboard_call_duration_seconds", labels); got != 1 {
			t.Errorf("switchboard_call_duration_seconds%v counted %v more, want 1", labels, got)
		}
	}
	if got := after.Value("switchboard_connections", map[string]string{"state": string(wire.StateReady)}); got < 1 {
		t.Errorf("switchboard_connections{state=ready} is %v, want at least the echo server's", got)
	}
	if got := moved("switchboard_gateway_sessions_opened_total", nil); got != 1 {
		t.Errorf("switchboard_gateway_sessions_opened_total moved by %v, want 1", got)
	}
	if got := moved("switchboard_store_transaction_duration_seconds", nil); got < 1 {
		t.Errorf("switchboard_store_transaction_duration_seconds counted %v more, want the server's registration at least", got)
	}
	if got := moved("switchboard_dashboard_deltas_total", nil); got < 1 {
		t.Errorf("switchboard_dashboard_deltas_total moved by %v, want the call's deltas", got)
	}
	if got := after.Value("switchboard_build_info", nil); got != 1 {
		t.Errorf("switchboard_build_info is %v, want 1", got)
	}
	for name := range after {
		if !strings.HasPrefix(name, "switchboard_") && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			t.Errorf("metric %s does not start with switchboard_", name)
		}
	}

	if err := stopTracing(ctx); err != nil { // sends every span
		t.Fatal(err)
	}
	recv.mu.Lock()
	spans := recv.spans
	recv.mu.Unlock()
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	echo.mu.Lock()
	traceparents := strings.Join(echo.traceparents, " ")
	echo.mu.Unlock()
	want := map[string]string{metrics.RouteDashboard: "op " + string(wire.OpCallTool), metrics.RouteAgent: "agent request"}
	for _, s := range spans {
		if s.Name != "tool call" {
			continue
		}
		route := attr(s, "switchboard.route")
		parent := byID[hex.EncodeToString(s.ParentSpanId)]
		if parent == nil || parent.Name != want[route] {
			t.Errorf("the %s tool call's parent is %v, want the span %q", route, parent, want[route])
		}
		tp := "00-" + hex.EncodeToString(s.TraceId) + "-" + hex.EncodeToString(s.SpanId)
		if !strings.Contains(traceparents, tp) {
			t.Errorf("the MCP server heard traceparents %q, none of the %s tool call (%s)", traceparents, route, tp)
		}
		delete(want, route)
	}
	if len(want) > 0 {
		t.Errorf("no tool call span for %v among %d spans", want, len(spans))
	}
}

// attr is the string attribute key of s.
func attr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.GetStringValue()
		}
	}
	return ""
}

// bearer is a RoundTripper that authenticates as an agent key.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}
