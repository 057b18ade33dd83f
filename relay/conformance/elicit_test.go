package conformance

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultsSchema is the requested schema of the suite's
// elicitation-sep1034-client-defaults scenario.
const defaultsSchema = `{
	"type": "object",
	"properties": {
		"name": {"type": "string", "description": "User name", "default": "John Doe"},
		"age": {"type": "integer", "description": "User age", "default": 30},
		"score": {"type": "number", "description": "User score", "default": 95.5},
		"status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
		"verified": {"type": "boolean", "default": true}
	},
	"required": []
}`

func TestElicitationIsAcceptedWithTheSchemaDefaults(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1.0.0"}, nil)
	answers := make(chan *mcp.ElicitResult, 1)
	mcp.AddTool(s, &mcp.Tool{Name: "test_client_elicitation_defaults"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "accept with defaults", RequestedSchema: json.RawMessage(defaultsSchema)})
		if err != nil {
			return nil, nil, err
		}
		answers <- res
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	if err := run(t, t.Context(), "elicitation-sep1034-client-defaults", mcpServer(t, s)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var res *mcp.ElicitResult
	select {
	case res = <-answers:
	default:
		t.Fatal("the server got no answer to its elicitation")
	}
	want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("answer = %s %v, want accept %v", res.Action, res.Content, want)
	}
}
