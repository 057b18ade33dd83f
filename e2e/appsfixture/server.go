package appsfixture

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// The attacks, each the name of a tool and of its view.
const (
	NavigateTop     = "navigate_top"
	ReadParent      = "read_parent"
	ForgeMessages   = "forge_messages"
	Flood           = "flood"
	FloodTop        = "flood_top"
	HugeDocument    = "huge_document"
	FetchUndeclared = "fetch_undeclared"
	FetchDeclared   = "fetch_declared"
	AskPermissions  = "ask_permissions"
	ModelContext    = "model_context"
	PartialInput    = "partial_input"
	FullScreen      = "full_screen"
)

// Attacks lists every attack, in the order of the package documentation.
var Attacks = []string{NavigateTop, ReadParent, ForgeMessages, Flood, FloodTop, HugeDocument, FetchUndeclared, FetchDeclared, AskPermissions, ModelContext, PartialInput, FullScreen}

// The app-only tools the views call back.
const (
	// ToolReport records a view's outcome: {"attack": name, "outcome": any}.
	ToolReport = "report"
	// ToolTick counts the calls the flood view got through.
	ToolTick = "tick"
)

// What the views use and say.
const (
	// MIMEType is the type of a view's HTML.
	MIMEType = "text/html;profile=mcp-app"
	// ProtocolVersion is the view protocol's version the views ask for.
	ProtocolVersion = "2026-01-26"
	// FloodBurst is how many calls the flood views post at once, every
	// 20 ms, until they are stopped: five times what a host lets a view
	// send at once, so that the first burst is a flood however slowly a
	// loaded browser hands it over.
	FloodBurst = 1_000
	// HugeSize is the least size of the huge view, in bytes.
	HugeSize = 50 << 20
	// ProbeBody is what the probe server answers at ProbePath.
	ProbeBody = "probe-ok"
	// ProbePath is where the fetching views fetch the probe server.
	ProbePath = "/probe"
	// NavigatePath is where the navigating view sends top and parent.
	NavigatePath = "/navigate"
	// ContextMark is what the model_context view gives the model.
	ContextMark = "The person picked the third row of the view."
	// ForgedMark is in every result the forging view makes up: the
	// dashboard must never show it.
	ForgedMark = "FORGED-BY-A-VIEW"
	// ForgedHTMLAttack is the attack the forged view's HTML reports as,
	// should any frame ever run it; ForgedViaTopAttack is the report the
	// forging view asks top for directly, which must never run.
	ForgedHTMLAttack   = "forged_html"
	ForgedViaTopAttack = "forged_via_top"
)

// URI is the ui:// resource of an attack's view.
func URI(attack string) string { return "ui://appsfixture/" + attack + ".html" }

// Report is what a view reported.
type Report struct {
	Attack  string          `json:"attack"`
	Outcome json.RawMessage `json:"outcome,omitempty"`
}

// Server is a running Apps fixture with its probe server. Its methods are
// safe for concurrent use.
type Server struct {
	*fixture.Loopback
	probe *http.Server
	base  string // the probe server's origin

	views map[string]view // by attack

	mu      sync.Mutex
	reports []Report
	ticks   int
	probes  []string                 // request URIs the probe server got, in order
	reads   map[string]int           // reads of each attack's view
	held    map[string]chan struct{} // views whose reads wait until released
	changed chan struct{}
}

// Start starts the probe server and the fixture on free loopback ports and
// stops both when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{changed: make(chan struct{}), reads: map[string]int{}, held: map[string]chan struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("probe server: %v", err)
	}
	s.base = "http://" + ln.Addr().String()
	s.probe = &http.Server{Handler: http.HandlerFunc(s.serveProbe), ReadHeaderTimeout: 5 * time.Second}
	go s.probe.Serve(ln)
	t.Cleanup(func() { s.probe.Close() })
	s.views = buildViews(s.base)
	s.Loopback = fixture.NewLoopback(s.newMCPServer)
	fixture.Serve(t, s.Loopback)
	return s
}

// ProbeOrigin is the probe server's origin, http://127.0.0.1:PORT.
func (s *Server) ProbeOrigin() string { return s.base }

// Reports returns every report so far, in order.
func (s *Server) Reports() []Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Report(nil), s.reports...)
}

// ReportsOf returns the reports of one attack.
func (s *Server) ReportsOf(attack string) []Report {
	var out []Report
	for _, r := range s.Reports() {
		if r.Attack == attack {
			out = append(out, r)
		}
	}
	return out
}

// WaitReport waits for the first report of attack and returns it.
func (s *Server) WaitReport(attack string, timeout time.Duration) (Report, error) {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		changed := s.changed
		for _, r := range s.reports {
			if r.Attack == attack {
				s.mu.Unlock()
				return r, nil
			}
		}
		s.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			return Report{}, fmt.Errorf("no report of %s within %v (reports: %v)", attack, timeout, s.Reports())
		}
	}
}

// Hold makes every read of attack's view wait until release is called
// (or the read is cancelled).
func (s *Server) Hold(attack string) (release func()) {
	held := make(chan struct{})
	s.mu.Lock()
	s.held[attack] = held
	s.mu.Unlock()
	return sync.OnceFunc(func() {
		s.mu.Lock()
		delete(s.held, attack)
		s.mu.Unlock()
		close(held)
	})
}

// ReadsOf is how many times attack's view was read.
func (s *Server) ReadsOf(attack string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[attack]
}

// WaitReads waits until attack's view was read at least n times.
func (s *Server) WaitReads(attack string, n int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		changed, reads := s.changed, s.reads[attack]
		s.mu.Unlock()
		if reads >= n {
			return nil
		}
		select {
		case <-changed:
		case <-deadline:
			return fmt.Errorf("the %s view was read %d times within %v, want %d", attack, reads, timeout, n)
		}
	}
}

// read counts a read of attack's view and waits while it is held.
func (s *Server) read(ctx context.Context, attack string) error {
	s.mu.Lock()
	s.reads[attack]++
	s.signal()
	held := s.held[attack]
	s.mu.Unlock()
	if held == nil {
		return nil
	}
	select {
	case <-held:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ticks is how many calls of the tick tool ran.
func (s *Server) Ticks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ticks
}

// Probes returns the request URIs (path and query) the probe server got.
func (s *Server) Probes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.probes...)
}

// signal wakes the waiters; s.mu is held.
func (s *Server) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// serveProbe records every request and answers any origin.
func (s *Server) serveProbe(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.probes = append(s.probes, r.URL.RequestURI())
	s.signal()
	s.mu.Unlock()
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, ProbeBody)
}

func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "appsfixture", Version: "1.0.0"}, nil)
	for _, attack := range Attacks {
		v := s.views[attack]
		srv.AddTool(&mcp.Tool{
			Name:        attack,
			Description: "Shows the " + attack + " view.",
			InputSchema: map[string]any{"type": "object"},
			Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": URI(attack)}},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the " + attack + " view"}}}, nil
		})
		meta := v.meta()
		srv.AddResource(&mcp.Resource{URI: URI(attack), Name: attack, MIMEType: MIMEType, Meta: meta},
			func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				if err := s.read(ctx, attack); err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: URI(attack), MIMEType: MIMEType, Text: v.html(), Meta: meta}}}, nil
			})
	}
	appOnly := mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}
	srv.AddTool(&mcp.Tool{
		Name:        ToolReport,
		Description: "Records what a view saw (called by the views only).",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"attack": map[string]any{"type": "string"}, "outcome": map[string]any{}}, "required": []string{"attack"}},
		Meta: appOnly,
	}, s.report)
	srv.AddTool(&mcp.Tool{
		Name:        ToolTick,
		Description: "Counts a call (called by the flood view only).",
		InputSchema: map[string]any{"type": "object"},
		Meta:        appOnly,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		s.ticks++
		s.signal()
		s.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tick"}}}, nil
	})
	return srv
}

// report records a view's report.
func (s *Server) report(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var r Report
	if err := json.Unmarshal(req.Params.Arguments, &r); err != nil || r.Attack == "" {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("not a report: %s", req.Params.Arguments)}}}, nil
	}
	s.mu.Lock()
	s.reports = append(s.reports, r)
	s.signal()
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reported " + r.Attack}}}, nil
}
