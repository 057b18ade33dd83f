package mcpwire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestConvertToolKeepsOnlyAUsableUI(t *testing.T) {
	long := "ui://v/" + strings.Repeat("a", maxAppURIBytes)
	for _, c := range []struct {
		name string
		meta mcp.Meta
		want *wire.ToolUI
	}{
		{"none", nil, nil},
		{"a view", mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/main"}}, &wire.ToolUI{ResourceURI: "ui://v/main"}},
		{"the deprecated key", mcp.Meta{"ui/resourceUri": "ui://v/old"}, &wire.ToolUI{ResourceURI: "ui://v/old"}},
		{"ui before the deprecated key", mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/new"}, "ui/resourceUri": "ui://v/old"}, &wire.ToolUI{ResourceURI: "ui://v/new"}},
		{"not ui://", mcp.Meta{"ui": map[string]any{"resourceUri": "https://evil.example/x"}}, nil},
		{"too long", mcp.Meta{"ui": map[string]any{"resourceUri": long}}, nil},
		{"control characters", mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/\n"}}, nil},
		{"wrong types", mcp.Meta{"ui": map[string]any{"resourceUri": 42, "visibility": "app"}, "ui/resourceUri": true}, nil},
		{"ui not an object", mcp.Meta{"ui": "ui://v/main"}, nil},
		{"visibility filtered", mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/main", "visibility": []any{"root", 3, "app", "app", "model", "app"}}},
			&wire.ToolUI{ResourceURI: "ui://v/main", Visibility: []string{"app", "model"}}},
		{"for the app only, without a view", mcp.Meta{"ui": map[string]any{"visibility": []any{"app"}}}, &wire.ToolUI{Visibility: []string{"app"}}},
		{"only unknown audiences: closed to models", mcp.Meta{"ui": map[string]any{"visibility": []any{"admin"}}}, &wire.ToolUI{Visibility: []string{"app"}}},
	} {
		tool, ok := convertTool(&mcp.Tool{Name: "t", Meta: c.meta})
		if !ok {
			t.Fatalf("%s: tool dropped", c.name)
		}
		if !reflect.DeepEqual(tool.UI, c.want) {
			t.Errorf("%s: UI %+v, want %+v", c.name, tool.UI, c.want)
		}
	}
}
