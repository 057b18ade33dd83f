package chat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/toolnames"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A tool for its App only is never offered to the model; its server's
// other tools are.
func TestToolsForTheAppOnlyAreNotOffered(t *testing.T) {
	r := newRelay(t, 0)
	srv := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, nil)
	done := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&mcp.Tool{Name: "show", InputSchema: schema, Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://apps/view"}}}, done)
	srv.AddTool(&mcp.Tool{Name: "refresh", InputSchema: schema, Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}}, done)
	id := r.add("apps", fixture.ServeOnce(t, srv).URL())

	r.model.Queue(modelfixture.Text("ok"))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Hi."}, nil)
	r.ended(c.ID)
	tools := r.model.Await(t, 1)[0].Tools
	if !hasTool(tools, toolnames.Model.Name(id, "show")) || hasTool(tools, toolnames.Model.Name(id, "refresh")) {
		t.Errorf("offered %+v; want show and not refresh", tools)
	}
}
