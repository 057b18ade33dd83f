package conn

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A log message a server sends during a call reaches the listeners before
// the call returns, though the go-sdk hands notifications over from a
// queue of its own: the agent gateway passes it on the call's stream.
func TestCallsLogMessagesAreHeardBeforeItReturns(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	f.server.AddTool(&mcp.Tool{Name: "chatty", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Data: "working"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	c, _, _ := startReady(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := c.SetAgentLogLevel(ctx, "agent", "info"); err != nil {
		t.Fatal(err)
	}
	var heard atomic.Int64
	stop := c.OnLog(func(*mcp.LoggingMessageParams) { heard.Add(1) })
	defer stop()
	for i := range 20 {
		if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "chatty", Arguments: map[string]any{}}, nil); err != nil {
			t.Fatal(err)
		}
		if got := heard.Load(); got != int64(i+1) {
			t.Fatalf("after call %d the listener heard %d log messages", i+1, got)
		}
	}
}

// Likewise a progress notification sent before the result reaches the
// call's progress callback before the call returns.
func TestCallsProgressIsHeardBeforeItReturns(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	f.server.AddTool(&mcp.Tool{Name: "steps", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 3 {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 3})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	c, _, _ := startReady(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	for i := range 20 {
		var heard atomic.Int64
		if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{}}, func(*mcp.ProgressNotificationParams) { heard.Add(1) }); err != nil {
			t.Fatal(err)
		}
		if got := heard.Load(); got != 3 {
			t.Fatalf("call %d returned after %d of its 3 progress notifications", i+1, got)
		}
	}
}
