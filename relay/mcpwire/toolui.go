package mcpwire

import (
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxUIURI caps a tool's view URI, in bytes.
const maxUIURI = 2048

// toolUI reads a tool's _meta.ui (or the deprecated flat
// _meta["ui/resourceUri"]) defensively: only a ui:// URI, only the
// visibilities the extension names; anything else is dropped. nil when the
// tool has no view and no visibility.
func toolUI(meta map[string]any) *wire.ToolUI {
	var ui wire.ToolUI
	nested, _ := meta["ui"].(map[string]any)
	uri, _ := nested["resourceUri"].(string)
	if uri == "" {
		uri, _ = meta["ui/resourceUri"].(string)
	}
	if strings.HasPrefix(uri, "ui://") && len(uri) <= maxUIURI && utf8.ValidString(uri) && !strings.ContainsAny(uri, " \t\r\n") {
		ui.ResourceURI = uri
	}
	if list, ok := nested["visibility"].([]any); ok && len(list) <= 8 {
		for _, v := range list {
			s, _ := v.(string)
			if (s == wire.VisibleToModel || s == wire.VisibleToApp) && !contains(ui.Visibility, s) {
				ui.Visibility = append(ui.Visibility, s)
			}
		}
		if len(ui.Visibility) == 0 && len(list) > 0 {
			// Only unknown audiences: the tool is for neither, which the
			// relay reads as app-only, the narrower of the two it knows.
			ui.Visibility = []string{wire.VisibleToApp}
		}
	}
	if ui.ResourceURI == "" && len(ui.Visibility) == 0 {
		return nil
	}
	return &ui
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
