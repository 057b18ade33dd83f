package rootsfixture

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Path is the fixture's MCP endpoint path.
const Path = fixture.Path

// Options choose what kind of server a fixture is.
type Options struct {
	// Stateless serves the 2026-07-28 protocol only, where the server asks
	// for roots through input requests and the log level comes with each
	// request; otherwise the server is stateful.
	Stateless bool
}

// Server is a running fixture. Its methods are safe for concurrent use.
type Server struct {
	lb  *fixture.Loopback // serves mcp; never restarted
	mcp *mcp.Server

	mu           sync.Mutex
	rootsChanged int           // notifications/roots/list_changed heard
	levels       []string      // logging/setLevel requests, in order
	grown        int           // tools added by grow
	heard        chan struct{} // closed and replaced whenever something is heard
}

// Start starts a fixture on a free loopback port; it stops when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{heard: make(chan struct{})}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "roots-fixture", Version: "1.0.0"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
			s.note(func() { s.rootsChanged++ })
		},
	})
	s.mcp.AddReceivingMiddleware(s.recordLevels)
	s.addTools(opts.Stateless)
	s.lb = fixture.ServeOnce(t, s.mcp, fixture.Stateless(opts.Stateless))
	return s
}

// URL is the fixture's MCP endpoint.
func (s *Server) URL() string { return s.lb.URL() }

// RootsChanged is how many roots list changes the server heard.
func (s *Server) RootsChanged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rootsChanged
}

// Levels are the levels clients set with logging/setLevel, in order.
func (s *Server) Levels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.levels...)
}

// Await waits until cond, checked each time the server hears something,
// holds, or fails the test after timeout.
func (s *Server) Await(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		heard := s.heard
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-heard:
		case <-deadline.C:
			t.Fatalf("the fixture did not hear %s within %v", what, timeout)
		}
	}
}

// note changes the record under the lock and wakes the waiters.
func (s *Server) note(change func()) {
	s.mu.Lock()
	change()
	close(s.heard)
	s.heard = make(chan struct{})
	s.mu.Unlock()
}

// recordLevels notes each logging/setLevel request.
func (s *Server) recordLevels(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" {
			s.note(func() { s.levels = append(s.levels, string(p.Level)) })
		}
		return next(ctx, method, req)
	}
}

// Levels of MCP, least severe first.
var levels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// addTools adds roots, log and grow.
func (s *Server) addTools(stateless bool) {
	noArgs := map[string]any{"type": "object"}
	s.mcp.AddTool(&mcp.Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: noArgs},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if stateless {
				if r, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult); ok {
					return rootsResult(r), nil
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}, RequestState: "roots"}, nil
			}
			r, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, fmt.Errorf("list roots: %w", err)
			}
			return rootsResult(r), nil
		})
	s.mcp.AddTool(&mcp.Tool{Name: "log", Description: "Sends a log message at every level.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}},
	}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Message string `json:"message"`
			}
			json.Unmarshal(req.Params.Arguments, &args) // a missing message logs an empty one
			for _, l := range levels {
				var data any = args.Message + " at " + string(l)
				if l == "notice" {
					data = map[string]any{"message": args.Message, "detail": map[string]any{"level": l, "n": 1}}
				}
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: l, Logger: "fixture", Data: data}); err != nil {
					return nil, fmt.Errorf("log: %w", err)
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil
		})
	s.mcp.AddTool(&mcp.Tool{Name: "grow", Description: "Adds a tool.", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.mu.Lock()
			s.grown++
			name := fmt.Sprintf("grown-%d", s.grown)
			s.mu.Unlock()
			s.mcp.AddTool(&mcp.Tool{Name: name, InputSchema: noArgs}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
		})
}

// Root is a root as the tool roots reports it.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ParseRoots reads the text of the tool roots' result.
func ParseRoots(text string) ([]Root, error) {
	var roots []Root
	if err := json.Unmarshal([]byte(text), &roots); err != nil {
		return nil, fmt.Errorf("not a list of roots: %w", err)
	}
	return roots, nil
}

func rootsResult(r *mcp.ListRootsResult) *mcp.CallToolResult {
	roots := make([]Root, 0, len(r.Roots))
	for _, root := range r.Roots {
		roots = append(roots, Root{URI: root.URI, Name: root.Name})
	}
	b, _ := json.Marshal(roots) // roots always marshal
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
