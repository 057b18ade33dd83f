package toolfixture

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Server is a running tool fixture. Its methods are safe for concurrent use.
type Server struct {
	*fixture.Loopback

	mu       sync.Mutex
	received []json.RawMessage // the arguments of each rich call, in order
	wipes    int
	crashed  chan struct{} // closed when the crash tool stopped the server
	crash    sync.Once
}

// Start starts a fixture on a free loopback port and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{crashed: make(chan struct{})}
	s.Loopback = fixture.NewLoopback(s.newMCPServer)
	if err := s.Start(); err != nil {
		t.Fatalf("start tool fixture: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop tool fixture: %v", err)
		}
	})
	return s
}

// Received returns the arguments of every call of the rich tool, as sent.
func (s *Server) Received() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.received...)
}

// Wipes is how many times the destructive tool ran.
func (s *Server) Wipes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wipes
}

// Crashed is closed once the crash tool stopped the server.
func (s *Server) Crashed() <-chan struct{} { return s.crashed }

func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "toolfixture", Version: "1.0.0"}, nil)
	s.addTools(srv)
	srv.AddResource(&mcp.Resource{URI: NotesURI, Name: "notes", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: NotesURI, MIMEType: "text/plain", Text: NotesText}}}, nil
		})
	return srv
}
