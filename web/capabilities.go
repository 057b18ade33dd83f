package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// renderCapabilities shows what the server declared it can do and what
// the relay told it that it can do.
func renderCapabilities(s wire.Server) app.UI {
	return app.Div().Class("capabilities").Body(
		app.H3().Class("list-title").Text("Capabilities"),
		app.Dl().ID("server-capabilities").Class("info-list").Body(
			infoRow("Declared by the server", orNotYet(serverCapabilityWords(s.Capabilities))),
			infoRow("Advertised by the relay", orNone(clientCapabilityWords(s.ClientCapabilities))),
		),
	)
}

// clientCapabilityWords lists the capabilities the relay advertised.
func clientCapabilityWords(caps []wire.ClientCapability) string {
	names := make([]string, len(caps))
	for i, c := range caps {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// serverCapabilityWords lists declared capabilities, e.g. "tools (list
// changes), resources (subscribe), tasks (tool calls, cancel)".
func serverCapabilityWords(c *wire.ServerCapabilities) string {
	if c == nil {
		return ""
	}
	var parts []string
	list := func(name string, l *wire.ListCapability) {
		if l != nil {
			parts = append(parts, name+withFeatures(l.ListChanged, "list changes"))
		}
	}
	list("tools", c.Tools)
	list("prompts", c.Prompts)
	if r := c.Resources; r != nil {
		parts = append(parts, "resources"+withFeatures(r.Subscribe, "subscribe", r.ListChanged, "list changes"))
	}
	if c.Logging {
		parts = append(parts, "logging")
	}
	if c.Completions {
		parts = append(parts, "completions")
	}
	if t := c.Tasks; t != nil {
		parts = append(parts, "tasks"+withFeatures(t.ToolCall, "tool calls", t.List, "list", t.Cancel, "cancel"))
	}
	for _, name := range c.Experimental {
		parts = append(parts, "experimental: "+name)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// withFeatures is " (a, b)" for the features that hold, given as pairs of
// a bool and a name, or "" when none does.
func withFeatures(pairs ...any) string {
	var on []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if ok, _ := pairs[i].(bool); ok {
			on = append(on, pairs[i+1].(string))
		}
	}
	if len(on) == 0 {
		return ""
	}
	return " (" + strings.Join(on, ", ") + ")"
}
