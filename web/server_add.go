package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AddServerForm registers a server by name, URL and transport, checking
// them before anything is sent.
type AddServerForm struct {
	app.Compo
	mounted

	adding  bool   // the op is on its way
	problem string // what to fix, or why the relay refused
	note    string // a remark on success
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
					Placeholder("My server").MaxLength(maxServerName).
					Aria("describedby", "add-error"),
			),
			app.Div().Class("sb-field").Body(
				app.Label().For("add-url").Text("URL"),
				app.Input().ID("add-url").Name("url").Type("text").Attr("inputmode", "url").
					AutoComplete(false).Spellcheck(false).
					Placeholder("https://example.com/mcp").
					Aria("describedby", "add-error"),
			),
			app.Div().Class("sb-field").Body(
				app.Label().For("add-transport").Text("Transport"),
				app.Select().ID("add-transport").Name("transport").Body(
					app.Option().Value(wire.TransportStreamable).Selected(true).Text("Streamable HTTP"),
					app.Option().Value(wire.TransportSSE).Text("SSE (legacy)"),
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
	args, problem := checkAddServer(domValue("add-name"), domValue("add-url"), domValue("add-transport"))
	if f.problem = problem; problem != "" {
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
	setDOMValue("add-transport", wire.TransportStreamable)
	if res.Existing {
		f.note = "That server was already registered; it is selected."
	}
	ctx.NewActionWithValue(actionSelect, res.ID)
}
