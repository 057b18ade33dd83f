package elicitfixture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Paths the fixture serves.
const (
	Path         = fixture.Path // the MCP endpoint
	CompletePath = "/complete"  // ?id=ELICITATION: "the person finished at the URL"
)

// Options choose what kind of server a fixture is.
type Options struct {
	// Stateless serves the 2026-07-28 protocol only, where a server asks
	// through input requests; otherwise the server is stateful and uses
	// elicitation/create.
	Stateless bool
	// IgnoreCapabilities makes the server believe its client advertised
	// both elicitation modes, so that it asks in modes the client refused.
	IgnoreCapabilities bool
}

// Server is a running fixture. Its methods are safe for concurrent use.
type Server struct {
	lb  *fixture.Loopback // serves mcp and the completion page; never restarted
	mcp *mcp.Server

	mu        sync.Mutex
	next      int                           // numbers url_consent's elicitations
	waiting   map[string]*mcp.ServerSession // elicitation id → the session to notify
	completed map[string]bool
	visits    int // requests of the completion page
}

// Start starts a fixture on a free loopback port; it stops when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{
		waiting:   map[string]*mcp.ServerSession{},
		completed: map[string]bool{},
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "elicit-fixture", Title: "Elicitation fixture", Version: "1.0.0"}, nil)
	if opts.IgnoreCapabilities {
		s.mcp.AddReceivingMiddleware(ignoreCapabilities)
	}
	if opts.Stateless {
		s.addInputTools()
	} else {
		s.addTools()
	}
	s.lb = fixture.ServeOnce(t, s.mcp, fixture.Stateless(opts.Stateless),
		fixture.Handle("GET "+CompletePath, http.HandlerFunc(s.serveComplete)))
	return s
}

// URL is the fixture's MCP endpoint.
func (s *Server) URL() string { return s.lb.URL() }

// CompleteURL is the page that completes elicitation id when opened.
func (s *Server) CompleteURL(id string) string {
	return s.lb.Base() + CompletePath + "?id=" + url.QueryEscape(id)
}

// Stop closes the listener and every connection at once, like a crash, then
// ends the requests in flight.
func (s *Server) Stop() error { return s.lb.Stop() }

// serveComplete marks an elicitation complete, as the page a person finishes
// would, and tells the session that asked.
func (s *Server) serveComplete(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.visits++
	s.mu.Unlock()
	id := r.URL.Query().Get("id")
	if err := s.Complete(r.Context(), id); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "Done: %s is complete. You can close this tab.\n", id)
}

// Visits is how many requests reached the completion page, so that a test
// can tell that nothing opened a URL before the person asked for it.
func (s *Server) Visits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.visits
}

// Complete marks elicitation id complete and sends
// notifications/elicitation/complete to the session that was asked.
func (s *Server) Complete(ctx context.Context, id string) error {
	s.mu.Lock()
	ss, ok := s.waiting[id]
	s.completed[id] = true
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("no elicitation %q is waiting", id)
	}
	return ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
}

// await notes that ss waits for elicitation id, and reports whether it
// completed already.
func (s *Server) await(id string, ss *mcp.ServerSession) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting[id] = ss
	return s.completed[id]
}

// nextID returns a fresh elicitation id with the given prefix.
func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	return fmt.Sprintf("%s-%d", prefix, s.next)
}

// ignoreCapabilities rewrites a client's initialize to advertise both
// elicitation modes.
func ignoreCapabilities(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok {
			if p.Capabilities == nil {
				p.Capabilities = &mcp.ClientCapabilities{}
			}
			p.Capabilities.Elicitation = &mcp.ElicitationCapabilities{
				Form: &mcp.FormElicitationCapabilities{},
				URL:  &mcp.URLElicitationCapabilities{},
			}
		}
		return next(ctx, method, req)
	}
}

// Outcome is what a fixture's tool reports: the answer the server got, or
// the error its request ended with.
type Outcome struct {
	Action  wire.Action    `json:"action,omitempty"`
	Content map[string]any `json:"content,omitempty"`
	Meta    map[string]any `json:"meta,omitempty"` // the answer's _meta
	Code    int64          `json:"code,omitempty"` // a JSON-RPC error's code
	Error   string         `json:"error,omitempty"`
}

// ParseOutcome reads the text of a fixture tool's result.
func ParseOutcome(text string) (Outcome, error) {
	var o Outcome
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		return o, fmt.Errorf("not an outcome: %w", err)
	}
	return o, nil
}

// outcome reports the result of an elicitation.
func outcome(res *mcp.ElicitResult, err error) *mcp.CallToolResult {
	var o Outcome
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		o.Code, o.Error = rpcErr.Code, rpcErr.Message
	case err != nil:
		o.Error = err.Error()
	default:
		o.Action, o.Content, o.Meta = wire.Action(res.Action), res.Content, res.Meta
	}
	return jsonResult(o)
}

func jsonResult(v any) *mcp.CallToolResult {
	b, _ := json.Marshal(v) // outcomes always marshal
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
