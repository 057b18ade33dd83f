package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatExport downloads a conversation as Markdown or as JSON, in the file
// the relay names.
type ChatExport struct {
	app.Compo
	mounted

	Chat string // the conversation's id

	busy    wire.ExportFormat // the format on its way
	problem string
	note    string
}

// Render implements app.Composer.
func (x *ChatExport) Render() app.UI {
	button := func(class string, f wire.ExportFormat, label string) app.UI {
		return disabledIf(app.Button().Class(class, "sb-button").Type("button"), x.busy != "" || x.Chat == "").
			Text(choose(x.busy == f, "Exporting…", label)).
			OnClick(func(ctx app.Context, e app.Event) { x.export(f) }, app.EventScope(string(f)))
	}
	return app.Div().Class("chat-export").Body(
		button("chat-export-md", wire.ExportMarkdown, "Export Markdown"),
		button("chat-export-json", wire.ExportJSON, "Export JSON"),
		app.Span().Class("sb-error").Role("alert").Text(x.problem),
		app.Span().Class("sb-note").Role("status").Text(x.note),
	)
}

// export asks the relay for the file and saves it.
func (x *ChatExport) export(f wire.ExportFormat) {
	if x.busy != "" || x.Chat == "" {
		return
	}
	x.busy, x.problem, x.note = f, "", ""
	send(wire.OpExportChat, wire.ExportChatArgs{Chat: x.Chat, Format: f}, func(r store.Reply) {
		x.later(func(app.Context) {
			x.busy = ""
			if r.Err != nil {
				x.problem = opFailure("Could not export the conversation: ", r.Err)
				return
			}
			var res wire.ExportChatResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				x.problem = "The relay's answer could not be read; try again."
				return
			}
			name := fileName(res.Name)
			downloadFile(res.Body, name, res.MIME)
			x.note = "Saved as " + name + "."
		})
	})
}
