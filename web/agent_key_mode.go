package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The ids of the tool mode's select: on the key form, and on the consent
// card of an application that asks for /mcp.
const (
	keyModeSelect     = "key-tool-mode"
	consentModeSelect = "consent-tool-mode"
)

// keyModes are the tool modes a person may choose for a key, the usual
// first.
var keyModes = []struct {
	mode  wire.ToolMode
	label string
}{
	{wire.ToolModeTools, "Each tool, one by one"},
	{wire.ToolModeCode, "Code mode: search and execute"},
	{wire.ToolModeBoth, "Both"},
}

// renderModeChoice is the choice, in the select of id, of how an agent
// sees the tools on /mcp.
func renderModeChoice(id string) app.UI {
	return app.Div().Class("sb-field").Body(
		app.Label().For(id).Text("How the agent sees your tools on /mcp"),
		app.Select().ID(id).Name("toolMode").Aria("describedby", id+"-help").Body(
			app.Range(keyModes).Slice(func(i int) app.UI {
				return app.Option().Value(string(keyModes[i].mode)).Text(keyModes[i].label)
			}),
		),
		app.P().ID(id+"-help").Class("sb-note").Text(
			"In code mode the agent gets two tools instead of all of yours: search, which shows your tools' declarations, "+
				"and execute, which runs a short program that calls them. Each call it makes shows in Agent activity, "+
				"and every question a server asks comes to you here. /mcp/code is code mode for any key."),
	)
}

// keyModeText says a key's tool mode on the key list, unless one by one.
func keyModeText(m wire.ToolMode) string {
	switch m {
	case wire.ToolModeCode:
		return "Code mode on /mcp"
	case wire.ToolModeBoth:
		return "Its tools and code mode on /mcp"
	}
	return ""
}
