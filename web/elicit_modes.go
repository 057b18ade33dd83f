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

// The ids of the checkboxes.
const (
	elicitFormID = "elicit-form"
	elicitURLID  = "elicit-url"
)

// CompoID gives each server its own control.
func (m *ElicitModes) CompoID() string { return m.ServerID }

// OnMount shows the relay's modes.
func (m *ElicitModes) OnMount(ctx app.Context) {
	m.mounted.OnMount(ctx)
	m.showModes(ctx)
}

// OnUpdate shows the modes the relay sent; it runs only when they changed.
func (m *ElicitModes) OnUpdate(ctx app.Context) { m.showModes(ctx) }

// Render implements app.Composer.
func (m *ElicitModes) Render() app.UI {
	form, url := m.modes()
	box := func(id, label string, on bool, set func(bool) wire.SetElicitationArgs) app.UI {
		input := disabledIf(checkedIf(app.Input().ID(id).Type("checkbox"), on), m.saving).
			OnChange(func(ctx app.Context, e app.Event) { m.save(set(ctx.JSSrc().Get("checked").Bool())) })
		return app.Label().Class("sb-check").For(id).Body(input, app.Text(" "+label))
	}
	return app.FieldSet().ID("elicit-modes").Class("elicit-modes").Body(
		app.Legend().Class("panel-subtitle").Text("Questions this server may ask"),
		box(elicitFormID, "Forms", form, func(on bool) wire.SetElicitationArgs {
			return wire.SetElicitationArgs{Server: m.ServerID, Form: on, URL: url}
		}),
		box(elicitURLID, "Requests to open a web page", url, func(on bool) wire.SetElicitationArgs {
			return wire.SetElicitationArgs{Server: m.ServerID, Form: form, URL: on}
		}),
		app.P().Class("field-help").Text("Changing this reconnects the server."),
		app.P().ID("elicit-error").Class("sb-error").Role("alert").Text(m.problem),
	)
}

// modes reports whether the relay allows forms and URL requests.
func (m *ElicitModes) modes() (form, url bool) {
	return slices.Contains(m.Modes, wire.ModeForm), slices.Contains(m.Modes, wire.ModeURL)
}

// showModes ticks the boxes as the relay's modes are, after the render.
// go-app sets a checkbox's checked property when the attribute comes and
// only removes the attribute when it goes, which leaves a clicked box
// ticked; and a render that changes nothing touches nothing, which leaves a
// box as clicked after a refused change.
func (m *ElicitModes) showModes(ctx app.Context) {
	form, url := m.modes()
	ctx.Defer(func(app.Context) {
		setDOMChecked(elicitFormID, form)
		setDOMChecked(elicitURLID, url)
	})
}

// save asks the relay for new modes. A refused change shows the relay's
// modes again; an accepted one shows when the relay sends the new modes.
func (m *ElicitModes) save(args wire.SetElicitationArgs) {
	m.saving, m.problem = true, ""
	send(wire.OpSetElicitation, args, func(r store.Reply) {
		m.later(func(ctx app.Context) {
			m.saving = false
			if r.Err != nil {
				m.problem = opFailure("Could not change the questions allowed: ", r.Err)
				m.showModes(ctx)
			}
		})
	})
}
