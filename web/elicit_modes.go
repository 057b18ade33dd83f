package web

import (
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ElicitModes lets a person choose which kinds of questions a server may
// ask them: forms, and requests to open a URL. A mode left out is refused by
// the relay before it reaches anyone. Changing it reconnects the server.
type ElicitModes struct {
	app.Compo
	mounted

	ServerID string
	Modes    []string // as the relay offers them now

	saving  bool
	problem string
}

// CompoID gives each server its own control.
func (m *ElicitModes) CompoID() string { return m.ServerID }

// Render implements app.Composer.
func (m *ElicitModes) Render() app.UI {
	form, url := slices.Contains(m.Modes, wire.ModeForm), slices.Contains(m.Modes, wire.ModeURL)
	box := func(id, label string, on bool, set func(bool) wire.SetElicitationArgs) app.UI {
		input := disabledIf(checkedIf(app.Input().ID(id).Type("checkbox"), on), m.saving).
			OnChange(func(ctx app.Context, e app.Event) { m.save(set(ctx.JSSrc().Get("checked").Bool())) })
		return app.Label().Class("sb-check").For(id).Body(input, app.Text(" "+label))
	}
	return app.FieldSet().ID("elicit-modes").Class("elicit-modes").Body(
		app.Legend().Class("panel-subtitle").Text("Questions this server may ask"),
		box("elicit-form", "Forms", form, func(on bool) wire.SetElicitationArgs {
			return wire.SetElicitationArgs{Server: m.ServerID, Form: on, URL: url}
		}),
		box("elicit-url", "Requests to open a web page", url, func(on bool) wire.SetElicitationArgs {
			return wire.SetElicitationArgs{Server: m.ServerID, Form: form, URL: on}
		}),
		app.P().Class("field-help").Text("Changing this reconnects the server."),
		app.P().ID("elicit-error").Class("sb-error").Role("alert").Text(m.problem),
	)
}

func (m *ElicitModes) save(args wire.SetElicitationArgs) {
	m.saving, m.problem = true, ""
	send(wire.OpSetElicitation, args, func(r store.Reply) {
		m.later(func(app.Context) {
			m.saving = false
			if r.Err != nil {
				m.problem = "Could not change the questions allowed: " + r.Err.Message
			}
		})
	})
}
