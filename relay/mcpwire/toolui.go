package mcpwire

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxAppURIBytes caps a tool's view URI.
const maxAppURIBytes = 2048

// ToolUI reads a tool's App from its _meta: "ui" {resourceUri,
// visibility}, or the deprecated flat "ui/resourceUri". Only a ui:// URI is
// kept, and only the known visibilities, once each (a list of unknown ones
// only is read as app-only); values of the wrong type are ignored. It is
// nil when nothing usable is left.
func ToolUI(meta mcp.Meta) *wire.ToolUI {
	var out wire.ToolUI
	ui, _ := meta["ui"].(map[string]any)
	if uri, _ := ui["resourceUri"].(string); appURI(uri) {
		out.ResourceURI = uri
	} else if uri, _ := meta["ui/resourceUri"].(string); appURI(uri) {
		out.ResourceURI = uri
	}
	visibility, _ := ui["visibility"].([]any)
	for _, v := range visibility {
		if len(out.Visibility) == 2 {
			break
		}
		s, _ := v.(string)
		if (s == wire.VisibleToModel || s == wire.VisibleToApp) && (len(out.Visibility) == 0 || out.Visibility[0] != s) {
			out.Visibility = append(out.Visibility, s)
		}
	}
	if len(visibility) > 0 && out.Visibility == nil {
		// Only audiences the relay does not know: closed to models and
		// agents, the narrower reading; "app" is the one left to say so.
		out.Visibility = []string{wire.VisibleToApp}
	}
	if out.ResourceURI == "" && out.Visibility == nil {
		return nil
	}
	return &out
}

// appURI says whether uri can name a view: a ui:// URI within
// maxAppURIBytes.
func appURI(uri string) bool {
	return strings.HasPrefix(uri, "ui://") && len(uri) <= maxAppURIBytes && validKey(uri, maxAppURIBytes)
}
