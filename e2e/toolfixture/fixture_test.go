package toolfixture

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRichEchoesAndCrashStops(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolRich, Arguments: json.RawMessage(`{"name":"ada","count":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `{"name":"ada","count":2}` {
		t.Errorf("rich answered %q", got)
	}
	if got := s.Received(); len(got) != 1 || string(got[0]) != `{"name":"ada","count":2}` {
		t.Errorf("received %s", got)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolContents})
	if err != nil || len(res.Content) != 6 {
		t.Fatalf("contents: %v, %v", res, err)
	}
	go cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolCrash})
	select {
	case <-s.Crashed():
	case <-ctx.Done():
		t.Fatal("the crash tool did not stop the server")
	}
}
