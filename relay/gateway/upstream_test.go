package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// upstream is an MCP server on 127.0.0.1 that the relay connects to: echo
// (with a title, annotations, an icon and an output schema), slow (reports
// progress, then waits to be cancelled), a prompt, a resource and a
// template.
type upstream struct {
	srv       *mcp.Server
	url       string
	cancelled chan struct{} // slow saw its call cancelled
	started   chan struct{} // slow began a call
	ended     chan struct{} // closed as the test ends: slow's calls end
}

// echoTool is how the upstream describes echo; the agent must see it as it is.
var echoTool = &mcp.Tool{
	Name:         "echo",
	Title:        "Echo",
	Description:  "Echoes its arguments. <b>not HTML</b>",
	InputSchema:  json.RawMessage(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["a"]}`),
	OutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`),
	Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Echo it"},
	Icons:        []mcp.Icon{{Source: "https://example.com/echo.png", MIMEType: "image/png"}},
}

// hugeNote is a note of the upstream whose read is over the relay's limit.
const hugeNote = "note://huge"

func startUpstream(t testing.TB) *upstream {
	t.Helper()
	u := &upstream{cancelled: make(chan struct{}, 1), started: make(chan struct{}, 8), ended: make(chan struct{})}
	u.srv = mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	u.srv.AddTool(echoTool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}, StructuredContent: args}, nil
	})
	u.srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case u.started <- struct{}{}:
			default:
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 3; i++ {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 10, Message: "step"})
				}
			}
			select {
			case <-ctx.Done():
			case <-u.ended: // a call the relay left running as it closed
				return nil, errors.New("the test ended")
			}
			select { // a test reads one; more do not hold the server up
			case u.cancelled <- struct{}{}:
			default:
			}
			return nil, ctx.Err()
		})
	u.srv.AddTool(&mcp.Tool{Name: "chatty", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: "upstream", Data: "too fine to hear"})
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "upstream", Data: "working hard"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	u.srv.AddPrompt(&mcp.Prompt{Name: "hello", Description: "Says hello."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello there"}}}}, nil
		})
	u.srv.AddResource(&mcp.Resource{URI: "note://one", Name: "one", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://one", Text: "first note"}}}, nil
		})
	u.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "note://{name}", Name: "notes"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text := "note at " + req.Params.URI
			if req.Params.URI == hugeNote { // over the relay's result limit
				text = strings.Repeat("x", wire.MaxResultBytes+1)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
		})
	u.url = serveUpstream(t, u.srv)
	t.Cleanup(func() { close(u.ended) }) // before the server closes, which waits for its calls
	return u
}
