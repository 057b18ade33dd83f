package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AddServerForm registers a server by name, URL, transport, an optional
// id and custom headers, checking them as the relay will before anything is
// sent.
type AddServerForm struct {
	app.Compo
	mounted

	Taken []string // the names of the person's servers

	adding  bool   // the op is on its way
	problem string // what to fix, or why the relay refused
	field   string // the field the problem is about
	note    string // a remark on success
	headers int    // header rows shown
}

// Render implements app.Composer.
func (f *AddServerForm) Render() app.UI {
	return app.Form().ID("add-server").Class("add-server").Attr("novalidate", true).
		Aria("labelledby", "add-server-title").
		OnSubmit(f.submit).
		Body(
			app.H2().ID("add-server-title").Class("sb-section-title").Text("Add server"),
			app.Div().Class("sb-field").Body(
				app.Label().For("add-name").Text("Name"),
				app.Input().ID("add-name").Name("name").Type("text").AutoComplete(false).
					Placeholder("My server").Aria("invalid", f.field == fieldName).
					Aria("describedby", "add-error"),
			),
			app.Div().Class("sb-field").Body(
				app.Label().For("add-url").Text("URL"),
				app.Input().ID("add-url").Name("url").Type("text").Attr("inputmode", "url").
					AutoComplete(false).Spellcheck(false).
					Placeholder("https://example.com/mcp").Aria("invalid", f.field == fieldURL).
					Aria("describedby", "add-error"),
			),
			app.Div().Class("sb-field").Body(
				app.Label().For("add-transport").Text("Transport"),
				app.Select().ID("add-transport").Name("transport").Body(
					app.Option().Value(wire.TransportAuto).Selected(true).Text("Auto (Streamable HTTP, else SSE)"),
					app.Option().Value(wire.TransportStreamable).Text("Streamable HTTP"),
					app.Option().Value(wire.TransportSSE).Text("SSE (legacy)"),
				),
			),
			app.Details().Class("add-more").Body(
				app.Summary().Text("Id and headers"),
				app.Div().Class("sb-field").Body(
					app.Label().For("add-id").Text("Id (optional)"),
					app.Input().ID("add-id").Name("id").Type("text").AutoComplete(false).Spellcheck(false).
						Placeholder("generated").Aria("invalid", f.field == fieldServerID).Aria("describedby", "add-error"),
				),
				app.FieldSet().Class("sb-field").Body(
					app.Legend().Text("Headers sent to the server (values are kept secret)"),
					renderHeaderRows("add-header", f.headers, f.field == fieldHeaders),
					app.Button().ID("add-header-row").Class("sb-button", "is-quiet").Type("button").Text("Add header").
						OnClick(func(ctx app.Context, e app.Event) { f.headers++ }),
				),
			),
			disabledIf(app.Button().ID("add-submit").Class("sb-button", "is-primary").Type("submit"), f.adding).
				Text(choose(f.adding, "Adding…", "Add server")),
			app.P().ID("add-error").Class("sb-error").Role("alert").Text(f.problem),
			app.P().ID("add-note").Class("sb-note").Role("status").Text(f.note),
		)
}

// submit checks the form and sends server.add; on success it clears the
// inputs and selects the new server.
func (f *AddServerForm) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if f.adding {
		return
	}
	f.note = ""
	args, problem, field := checkAddServer(addInput{Name: domValue("add-name"), ID: domValue("add-id"), URL: domValue("add-url"),
		Transport: wire.Transport(domValue("add-transport")), Headers: headerRowsValue("add-header", f.headers), Taken: f.Taken})
	if f.problem, f.field = problem, field; problem != "" {
		return
	}
	f.adding = true
	send(wire.OpAddServer, args, func(r store.Reply) {
		f.later(func(ctx app.Context) { f.added(ctx, r) })
	})
}

// added shows the relay's answer to server.add.
func (f *AddServerForm) added(ctx app.Context, r store.Reply) {
	f.adding = false
	if r.Err != nil {
		f.problem = opFailure("Could not add the server: ", r.Err)
		return
	}
	var res wire.AddServerResult
	if err := json.Unmarshal(r.Data, &res); err != nil || res.ID == "" {
		f.problem = "The relay's answer could not be read; reload the page to see whether the server was added."
		return
	}
	setDOMValue("add-name", "")
	setDOMValue("add-url", "")
	setDOMValue("add-id", "")
	setDOMValue("add-transport", string(wire.TransportAuto))
	clearHeaderRows("add-header", f.headers)
	f.headers = 0
	if res.Existing {
		f.note = "That server was already registered; it is selected."
	}
	ctx.NewActionWithValue(actionSelect, res.ID)
}
