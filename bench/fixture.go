package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// toolTick is the fixture's tool every call figure calls: no arguments, a
// short text result, so that the figure measures the path and not the tool.
const toolTick = "tick"

// emptyObject is the input schema of the fixture's tools.
var emptyObject = map[string]any{"type": "object"}

// mcpFixture is a loopback MCP server (Streamable HTTP) with the tick tool
// and, optionally, many filler tools, one of which can be changed.
type mcpFixture struct {
	*fixture.Loopback
	ticks atomic.Int64
}

// startFixture serves a fixture with tools filler tools besides tick.
func startFixture(tools int) (*mcpFixture, error) {
	f := &mcpFixture{}
	f.Loopback = fixture.NewLoopback(func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "bench-fixture", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: toolTick, Description: "Counts calls.", InputSchema: emptyObject},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n := f.ticks.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tick " + strconv.FormatInt(n, 10)}}}, nil
			})
		for i := range tools {
			srv.AddTool(fillerTool(i, 0), fillerHandler)
		}
		addTaskTools(srv)
		return srv
	})
	if err := f.Start(); err != nil {
		return nil, err
	}
	return f, nil
}

// fillerTool is filler tool i in its version v: a name, a description of a
// realistic length and a small schema.
func fillerTool(i, v int) *mcp.Tool {
	return &mcp.Tool{
		Name:        fmt.Sprintf("tool_%04d", i),
		Description: fmt.Sprintf("Filler tool number %d, version %d: it looks up a record by id and returns its fields as text.", i, v),
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"id": map[string]any{"type": "string", "description": "the record's id"}},
			"required":   []string{"id"},
		},
	}
}

func fillerHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// changeTool replaces filler tool i by its version v; connected clients
// hear tools/list_changed (the go-sdk sends it 10 ms after the change).
func (f *mcpFixture) changeTool(i, v int) {
	f.Server().AddTool(fillerTool(i, v), fillerHandler)
}

// addTool adds a tool named name; connected clients hear tools/list_changed.
func (f *mcpFixture) addTool(name string) {
	f.Server().AddTool(&mcp.Tool{Name: name, Description: "Added during the run.", InputSchema: emptyObject}, fillerHandler)
}

// directClient connects a go-sdk client straight to the fixture.
func (f *mcpFixture) directClient(ctx context.Context) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.URL()}, nil)
}
