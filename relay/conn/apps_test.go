package conn

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestAppsExtensionOnlyWhenOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		f := newFixture(t, legacyEra, nil)
		f.server.AddTool(&mcp.Tool{Name: "caps", InputSchema: map[string]any{"type": "object"}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, _ := json.Marshal(req.Session.InitializeParams().Capabilities)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
			})
		cfg := testConfig(f.url)
		cfg.Apps = on
		c, r := start(t, cfg)
		r.AwaitState(wire.StateReady)
		res, err := c.CallTool(context.Background(), toolCall("caps", nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		var caps struct {
			Extensions map[string]struct {
				MIMETypes []string `json:"mimeTypes"`
			} `json:"extensions"`
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if err := json.Unmarshal([]byte(text), &caps); err != nil {
			t.Fatal(err)
		}
		ext, has := caps.Extensions[wire.AppsExtension]
		if has != on {
			t.Fatalf("apps %t: capabilities %s", on, text)
		}
		if on && (len(ext.MIMETypes) != 1 || ext.MIMETypes[0] != wire.AppMIMEType) {
			t.Fatalf("extension %s", text)
		}
	}
}
