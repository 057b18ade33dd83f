package web

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ServerCatalog lists the servers the relay's operator offers, under Add
// server: one click adds one to the person's servers. The op names the
// entry only; the relay fills in its URL and credentials. An entry whose
// URL one of the person's servers has shows as added.
type ServerCatalog struct {
	app.Compo
	mounted

	Entries []wire.CatalogEntry
	Servers []wire.Server

	adding  string // id of the entry whose op is on its way
	problem string // why the relay refused the last one
}

// Render implements app.Composer.
func (c *ServerCatalog) Render() app.UI {
	added := map[string]bool{}
	for _, s := range c.Servers {
		added[s.URL] = true
	}
	return app.Section().ID("server-catalog").Class("server-catalog").Aria("labelledby", "catalog-title").Body(
		app.H3().ID("catalog-title").Class("sb-section-title").Text("From the catalog"),
		app.Ul().Class("catalog-entries").Body(
			app.Range(c.Entries).Slice(func(i int) app.UI {
				return c.renderEntry(c.Entries[i], added[c.Entries[i].URL])
			}),
		),
		app.P().ID("catalog-error").Class("sb-error").Role("alert").Text(c.problem),
	)
}

// renderEntry shows one entry: name, description, URL, how it is
// authorized, and its Add button or that it is added.
func (c *ServerCatalog) renderEntry(e wire.CatalogEntry, added bool) app.UI {
	var action app.UI
	switch {
	case added:
		action = app.Span().Class("catalog-added").Text("Added")
	default:
		id := e.ID
		action = disabledIf(app.Button().Class("sb-button", "catalog-add").Type("button").
			Aria("label", "Add "+e.Name), c.adding != "").
			Text(choose(c.adding == id, "Adding…", "Add")).
			OnClick(func(ctx app.Context, ev app.Event) { c.add(id) })
	}
	return app.Li().Class("catalog-entry").DataSet("catalog", e.ID).DataSet("catalog-name", e.Name).Body(
		app.Div().Class("catalog-head").Body(
			app.Span().Class("catalog-name").Text(e.Name),
			action,
		),
		app.If(e.Description != "", func() app.UI { return app.P().Class("catalog-description").Text(e.Description) }),
		app.Div().Class("catalog-url").Text(e.URL),
		app.Div().Class("catalog-auth").Text(catalogAuthLabel(e.Auth)),
	)
}

// catalogAuthLabel says in words how an entry is authorized.
func catalogAuthLabel(a wire.CatalogAuth) string {
	if a == wire.CatalogAuthMachine {
		return "Shared access: the relay signs in for you"
	}
	return "You sign in with your own account"
}

// add sends server.add naming the catalog entry id.
func (c *ServerCatalog) add(id string) {
	if c.adding != "" {
		return
	}
	c.adding, c.problem = id, ""
	send(wire.OpAddServer, wire.AddServerArgs{Catalog: id}, func(r store.Reply) {
		c.later(func(ctx app.Context) { c.added(ctx, r) })
	})
}

// added shows the relay's answer and selects the new server.
func (c *ServerCatalog) added(ctx app.Context, r store.Reply) {
	c.adding = ""
	if r.Err != nil {
		c.problem = opFailure("Could not add the server: ", r.Err)
		return
	}
	var res wire.AddServerResult
	if err := json.Unmarshal(r.Data, &res); err != nil || res.ID == "" {
		c.problem = "The relay's answer could not be read; reload the page to see whether the server was added."
		return
	}
	ctx.NewActionWithValue(actionSelect, res.ID)
}
