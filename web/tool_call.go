package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// defaultToolArgs pre-fills the arguments box.
const defaultToolArgs = "{}"

// ToolPanel calls one tool: it shows the tool's input schema and sends the
// JSON arguments typed, once they parse as an object.
type ToolPanel struct {
	app.Compo

	ServerID string
	Tool     wire.Tool
	Ready    bool

	problem string // why the arguments cannot be sent
}

// CompoID gives each tool its own panel, so a new tool starts from "{}".
func (p *ToolPanel) CompoID() string { return p.ServerID + "\n" + p.Tool.Name }

// Render implements app.Composer.
func (p *ToolPanel) Render() app.UI {
	t := p.Tool
	return app.Section().ID("tool-panel").Class("panel", "tool-panel").DataSet("tool-name", t.Name).
		Aria("labelledby", "tool-panel-title").Body(
		app.H3().ID("tool-panel-title").Class("panel-title").Text(titleOr(t.Title, t.Name)),
		app.P().Class("panel-description").Text(t.Description),
		renderTaskSupport(t),
		app.H4().Class("panel-subtitle").Text("Input schema"),
		app.Pre().Class("tool-schema", "code-block").Text(schemaText(t.InputSchema)),
		app.Label().For("tool-args").Class("panel-label").Text("Arguments (a JSON object)"),
		app.Textarea().ID("tool-args").Class("code-input").Rows(6).Spellcheck(false).
			Aria("describedby", "tool-args-error").
			Aria("invalid", choose(p.problem != "", "true", "false")).
			Text(defaultToolArgs),
		app.P().ID("tool-args-error").Class("sb-error").Role("alert").Text(p.problem),
		app.Div().Class("panel-actions").Body(
			disabledIf(app.Button().ID("tool-call").Class("sb-button", "is-primary").Type("button"), t.Uncallable != "").
				Text("Call "+t.Name).OnClick(p.call),
			app.If(!p.Ready, func() app.UI {
				return app.Span().Class("sb-note").Text("The server is not ready; the call may fail.")
			}),
		),
	)
}

// call checks the arguments and sends tool.call; nothing is sent while they
// do not parse.
func (p *ToolPanel) call(ctx app.Context, e app.Event) {
	args, problem := parseToolArgs(domValue("tool-args"))
	if p.problem = problem; problem != "" {
		focusLater(ctx, "tool-args")
		return
	}
	if c := relay(); c != nil {
		c.CallTool(p.ServerID, p.Tool.Name, args)
	}
}

// schemaText is a tool's input schema as indented JSON text.
func schemaText(schema json.RawMessage) string {
	if len(schema) == 0 {
		return "(no input schema)"
	}
	return store.IndentJSON(schema)
}
