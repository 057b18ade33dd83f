// Package resourcefixture is an MCP server for the end-to-end tests of
// completions, resource templates, subscriptions and read results: prompts
// whose arguments complete, a template whose variables complete, a
// subscribable resource that changes on demand, JSON text, images, sound and
// other binary blobs, and a prompt with embedded resources.
package resourcefixture

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Path is where the fixture serves MCP.
const Path = fixture.Path

// Server is a resource fixture. Its methods are safe for concurrent use.
type Server struct {
	mu    sync.Mutex
	clock string // the text of ClockURI
	subs  int    // resources/subscribe requests for ClockURI, over every start
	subCh chan struct{}
	// slow counts the slow completions started and cancelled; slowCh
	// signals each change.
	slow   [2]int
	slowCh chan struct{}

	*fixture.Loopback // serves s.newMCPServer()
}

// Start starts a fixture on a free loopback port and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{clock: "tick 0", subCh: make(chan struct{}, 64), slowCh: make(chan struct{}, 64)}
	s.Loopback = fixture.NewLoopback(s.newMCPServer)
	fixture.Serve(t, s.Loopback)
	return s
}

// SetClock changes the text of ClockURI and tells the subscribed clients.
func (s *Server) SetClock(text string) {
	s.mu.Lock()
	s.clock = text
	s.mu.Unlock()
	if srv := s.Server(); srv != nil {
		srv.ResourceUpdated(contextBackground(), &mcp.ResourceUpdatedNotificationParams{URI: ClockURI})
	}
}

// Subscriptions is how many times a client subscribed to ClockURI.
func (s *Server) Subscriptions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs
}

// WaitSubscriptions waits until a client has subscribed to ClockURI n times.
func (s *Server) WaitSubscriptions(n int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for s.Subscriptions() < n {
		select {
		case <-s.subCh:
		case <-deadline:
			return fmt.Errorf("%d subscriptions to %s within %v, want %d", s.Subscriptions(), ClockURI, timeout, n)
		}
	}
	return nil
}

func (s *Server) clockText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock
}

func (s *Server) subscribed(uri string) {
	if uri != ClockURI {
		return
	}
	s.mu.Lock()
	s.subs++
	s.mu.Unlock()
	select {
	case s.subCh <- struct{}{}:
	default:
	}
}

func (s *Server) slowStarted()   { s.countSlow(0) }
func (s *Server) slowCancelled() { s.countSlow(1) }

func (s *Server) countSlow(i int) {
	s.mu.Lock()
	s.slow[i]++
	s.mu.Unlock()
	select {
	case s.slowCh <- struct{}{}:
	default:
	}
}

// WaitSlowCompletions waits until started completions of SlowValue began and
// cancelled of them were cancelled by the client.
func (s *Server) WaitSlowCompletions(started, cancelled int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		got := s.slow
		s.mu.Unlock()
		if got[0] >= started && got[1] >= cancelled {
			return nil
		}
		select {
		case <-s.slowCh:
		case <-deadline:
			return fmt.Errorf("slow completions started %d, cancelled %d within %v; want %d and %d", got[0], got[1], timeout, started, cancelled)
		}
	}
}
