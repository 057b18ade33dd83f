package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// exportFileName is the name an export is saved under.
const exportFileName = "switchboard-servers.json"

// ServerTransfer imports servers from the JSON file of a desktop MCP client
// (picked or pasted) and exports the person's servers in the same layout,
// without secret values.
type ServerTransfer struct {
	app.Compo
	mounted

	Servers []wire.Server

	importing bool
	problem   string                    // why nothing was imported
	report    *wire.ImportServersResult // the last import's report
}

// Render implements app.Composer.
func (t *ServerTransfer) Render() app.UI {
	return app.Details().ID("server-transfer").Class("server-transfer").Body(
		app.Summary().Text("Import or export servers"),
		app.Form().ID("import-servers").Attr("novalidate", true).OnSubmit(t.submit).Body(
			app.P().Class("sb-note").Text("Import the JSON file of Claude Desktop, Cursor, Windsurf or VS Code (an \"mcpServers\" or \"servers\" object). HTTP servers are added with their headers; stdio servers cannot be."),
			app.Div().Class("sb-field").Body(
				app.Label().For("import-file").Text("File"),
				app.Input().ID("import-file").Type("file").Accept("%s", ".json,application/json").OnChange(t.pick),
			),
			app.Div().Class("sb-field").Body(
				app.Label().For("import-text").Text("Or paste it"),
				app.Textarea().ID("import-text").Rows(4).Spellcheck(false).
					Placeholder("Paste the JSON of a desktop client: mcpServers, each with a url").
					Aria("describedby", "import-error"),
			),
			disabledIf(app.Button().ID("import-submit").Class("sb-button").Type("submit"), t.importing).
				Text(choose(t.importing, "Importing…", "Import")),
			app.P().ID("import-error").Class("sb-error").Role("alert").Text(t.problem),
		),
		t.renderReport(),
		t.renderExport(),
	)
}

// pick reads the chosen file into the text area, where it can be checked
// before it is sent.
func (t *ServerTransfer) pick(ctx app.Context, e app.Event) {
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		return
	}
	file := files.Index(0)
	if size := file.Get("size").Int(); size > mcpservers.MaxDocumentBytes {
		t.problem = fmt.Sprintf("The file is %d bytes; an import takes at most %d.", size, mcpservers.MaxDocumentBytes)
		return
	}
	t.problem = ""
	file.Call("text").Call("then",
		app.FuncOf(func(_ app.Value, args []app.Value) any {
			text := args[0].String()
			t.later(func(app.Context) { setDOMValue("import-text", text) })
			return nil
		}),
		app.FuncOf(func(app.Value, []app.Value) any {
			t.later(func(app.Context) { t.problem = "The browser could not read the file." })
			return nil
		}),
	)
}

// submit checks that the text is JSON of a size the relay takes and sends
// servers.import.
func (t *ServerTransfer) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if t.importing {
		return
	}
	doc := domValue("import-text")
	t.problem, t.report = checkImport(doc), nil
	if t.problem != "" {
		return
	}
	t.importing = true
	send(wire.OpImportServers, wire.ImportServersArgs{Document: json.RawMessage(doc)}, func(r store.Reply) {
		t.later(func(app.Context) { t.imported(r) })
	})
}

// checkImport says what is wrong with a document before it is sent, or "".
func checkImport(doc string) string {
	switch {
	case doc == "":
		return "Choose a file or paste its JSON first."
	case len(doc) > mcpservers.MaxDocumentBytes:
		return fmt.Sprintf("The file is %d bytes; an import takes at most %d.", len(doc), mcpservers.MaxDocumentBytes)
	}
	if _, err := mcpservers.Parse([]byte(doc)); err != nil {
		return "This is not a server list the relay can read: " + err.Error() + "."
	}
	return ""
}

// imported shows the relay's report.
func (t *ServerTransfer) imported(r store.Reply) {
	t.importing = false
	if r.Err != nil {
		t.problem = opFailure("Could not import: ", r.Err)
		return
	}
	var res wire.ImportServersResult
	if err := json.Unmarshal(r.Data, &res); err != nil {
		t.problem = "The relay's answer could not be read; the server list shows what was added."
		return
	}
	t.report = &res
	// The file may hold header values: they leave the page once sent.
	setDOMValue("import-text", "")
	setDOMValue("import-file", "")
}

func (t *ServerTransfer) renderReport() app.UI {
	res := t.report
	if res == nil {
		return app.Div().ID("import-report").Role("status")
	}
	added := 0
	for _, a := range res.Added {
		if !a.Existing {
			added++
		}
	}
	summary := strconv.Itoa(added) + " added, " + strconv.Itoa(len(res.Added)-added) + " already there, " + strconv.Itoa(len(res.Skipped)) + " not taken."
	return app.Div().ID("import-report").Class("import-report").Role("status").Body(
		app.P().Class("import-summary").Text(summary),
		app.Ul().Class("import-added").Body(
			app.Range(res.Added).Slice(func(i int) app.UI {
				a := res.Added[i]
				return app.Li().Class("import-entry").DataSet("name", a.Name).DataSet("outcome", choose(a.Existing, "existing", "added")).Body(
					app.Span().Class("import-name").Text(a.Name),
					app.Text(choose(a.Existing, ": already there", ": added")),
					app.If(a.Note != "", func() app.UI { return app.Span().Class("import-note").Text(" (" + a.Note + ")") }),
				)
			}),
		),
		app.Ul().Class("import-skipped").Body(
			app.Range(res.Skipped).Slice(func(i int) app.UI {
				s := res.Skipped[i]
				return app.Li().Class("import-entry").DataSet("name", s.Name).DataSet("outcome", "skipped").Body(
					app.Span().Class("import-name").Text(s.Name),
					app.Text(": not taken: "),
					app.Span().Class("import-reason").Text(s.Reason),
				)
			}),
		),
	)
}

// renderExport is a link that saves the person's servers as a file: header
// names with a placeholder for each value, URLs without secret parameters.
func (t *ServerTransfer) renderExport() app.UI {
	b, err := mcpservers.Export(t.Servers)
	if err != nil {
		return app.P().Class("sb-error").Text("The servers could not be exported.")
	}
	return app.Div().Class("export-servers").Body(
		app.A().ID("export-servers").Class("sb-button").
			Href("data:application/json;base64,%s", base64.StdEncoding.EncodeToString(b)).
			Download("%s", exportFileName).Text("Export servers"),
		app.P().Class("sb-note").Text("The file lists header names but never their values, and leaves secret URL parameters out."),
	)
}
