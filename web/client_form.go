package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ClientForm stores pre-registered OAuth client credentials for a server,
// for authorization servers that do not let Switchboard register itself.
// The secret is write-only: its input is emptied as soon as it is sent and
// the relay never sends it back.
type ClientForm struct {
	app.Compo
	mounted

	ServerID  string
	SecretSet bool // a client secret is stored

	saving  bool
	problem string
	note    string
}

// CompoID gives each server its own form.
func (f *ClientForm) CompoID() string { return f.ServerID }

// Render implements app.Composer.
func (f *ClientForm) Render() app.UI {
	secretHint := "Leave empty for a public client."
	if f.SecretSet {
		secretHint = "A secret is stored. Saving replaces it: type it again, or leave empty for a public client."
	}
	return app.Form().ID("client-form").Class("client-form").Attr("novalidate", true).
		Aria("labelledby", "client-form-title").OnSubmit(f.save).Body(
		app.H4().ID("client-form-title").Class("panel-subtitle").Text("Pre-registered client"),
		app.P().Class("field-help").Text("If the authorization server does not let Switchboard register itself, "+
			"enter the client you registered there. An empty client id clears the stored credentials."),
		app.Div().Class("sb-field").Body(
			app.Label().For("client-id").Text("Client id"),
			app.Input().ID("client-id").Type("text").AutoComplete(false).Spellcheck(false),
		),
		app.Div().Class("sb-field").Body(
			app.Label().For("client-secret").Text("Client secret"),
			app.Input().ID("client-secret").Type("password").Attr("autocomplete", "new-password").
				Aria("describedby", "client-secret-help"),
			app.Small().ID("client-secret-help").Class("field-help").Text(secretHint),
		),
		disabledIf(app.Button().ID("client-save").Class("sb-button").Type("submit"), f.saving).
			Text(choose(f.saving, "Saving…", "Save client")),
		app.P().ID("client-error").Class("sb-error").Role("alert").Text(f.problem),
		app.P().ID("client-note").Class("sb-note").Role("status").Text(f.note),
	)
}

// save sends the credentials and empties the secret's input at once.
func (f *ClientForm) save(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if f.saving {
		return
	}
	args := wire.SetClientArgs{
		Server:       f.ServerID,
		ClientID:     strings.TrimSpace(domValue("client-id")),
		ClientSecret: domValue("client-secret"),
	}
	setDOMValue("client-secret", "")
	if args.ClientID == "" && args.ClientSecret != "" {
		f.problem, f.note = "A client secret needs its client id.", ""
		return
	}
	f.saving, f.problem, f.note = true, "", ""
	send(wire.OpSetClient, args, func(r store.Reply) {
		f.later(func(app.Context) {
			f.saving = false
			switch {
			case r.Err != nil:
				f.problem = opFailure("Could not save the client: ", r.Err)
			case args.ClientID == "":
				f.note = "The stored client credentials were cleared."
			default:
				f.note = "Saved. Authorize again to use this client."
			}
		})
	})
}
