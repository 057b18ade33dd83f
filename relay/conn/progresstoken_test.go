package conn

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A progress token a caller (an agent) chose never reaches the server with
// a prompt or a resource read: it could name another call's token on the
// connection, and the server's progress would land on that call.
func TestPromptsAndReadsDropTheCallersProgressToken(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	f.server.AddPrompt(&mcp.Prompt{Name: "p"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprint(req.Params.GetProgressToken())}}}}, nil
	})
	f.server.AddResource(&mcp.Resource{URI: "note://one", Name: "one"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://one", Text: fmt.Sprint(req.Params.GetProgressToken())}}}, nil
	})
	c, _, _ := startReady(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	meta := mcp.Meta{"progressToken": "switchboard-1", "other": "kept"}
	pr, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Meta: meta, Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got := pr.Messages[0].Content.(*mcp.TextContent).Text; got != "<nil>" {
		t.Errorf("the server got the prompt with progress token %s", got)
	}
	rr, err := c.ReadResource(ctx, &mcp.ReadResourceParams{Meta: meta, URI: "note://one"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; got != "<nil>" {
		t.Errorf("the server got the read with progress token %s", got)
	}
	if meta["progressToken"] != "switchboard-1" {
		t.Error("the caller's meta was changed")
	}
}
