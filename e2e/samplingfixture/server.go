package samplingfixture

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Path is the MCP endpoint.
const Path = fixture.Path

// Options choose what kind of server a fixture is.
type Options struct {
	// Stateless serves the 2026-07-28 protocol only, where a server asks
	// through input requests.
	Stateless bool
}

// Server is a running fixture.
type Server struct {
	lb  *fixture.Loopback // serves mcp; never restarted
	mcp *mcp.Server
}

// Start starts a fixture on a free loopback port; it stops when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "sampling-fixture", Title: "Sampling fixture", Version: "1.0.0"}, nil)
	if opts.Stateless {
		s.addInputTools()
	} else {
		s.addTools()
	}
	s.lb = fixture.ServeOnce(t, s.mcp, fixture.Stateless(opts.Stateless))
	return s
}

// URL is the fixture's MCP endpoint.
func (s *Server) URL() string { return s.lb.URL() }

// Outcome is what a tool reports: the replies the server got, or the error
// its request ended with.
type Outcome struct {
	Rounds     int        `json:"rounds"`               // requests answered
	Model      string     `json:"model,omitempty"`      // the last reply's model
	StopReason string     `json:"stopReason,omitempty"` // the last reply's stop reason
	Text       string     `json:"text,omitempty"`       // the text of the last reply
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`  // every tool call of the replies, in order
	Code       int64      `json:"code,omitempty"`       // a JSON-RPC error's code
	Error      string     `json:"error,omitempty"`
}

// ToolCall is one tool_use block of a reply.
type ToolCall struct {
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// ParseOutcome reads the text of a fixture tool's result.
func ParseOutcome(text string) (Outcome, error) {
	var o Outcome
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		return o, fmt.Errorf("not an outcome: %w", err)
	}
	return o, nil
}

// failed records the error a request ended with.
func (o *Outcome) failed(err error) {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		o.Code, o.Error = rpcErr.Code, rpcErr.Message
		return
	}
	o.Error = err.Error()
}

// took records one reply.
func (o *Outcome) took(res *mcp.CreateMessageWithToolsResult) {
	o.Rounds++
	o.Model, o.StopReason, o.Text = res.Model, res.StopReason, ""
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			o.Text += c.Text
		case *mcp.ToolUseContent:
			o.ToolCalls = append(o.ToolCalls, ToolCall{Name: c.Name, Input: c.Input})
		}
	}
}

func (o Outcome) result() *mcp.CallToolResult {
	b, _ := json.Marshal(o) // outcomes always marshal
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
