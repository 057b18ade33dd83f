package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// rootsExcludedID is the id of the checkbox.
const rootsExcludedID = "roots-excluded"

// RootsExclusion lets a person hide their roots from one server: it then
// sees an empty list, at once, without reconnecting.
type RootsExclusion struct {
	app.Compo
	mounted

	ServerID string
	Excluded bool // as the relay holds it

	saving  bool
	problem string
}

// CompoID gives each server its own control.
func (x *RootsExclusion) CompoID() string { return x.ServerID }

// OnMount ticks the box as the relay says.
func (x *RootsExclusion) OnMount(ctx app.Context) {
	x.mounted.OnMount(ctx)
	x.show(ctx)
}

// OnUpdate ticks the box as the relay says.
func (x *RootsExclusion) OnUpdate(ctx app.Context) { x.show(ctx) }

// Render implements app.Composer.
func (x *RootsExclusion) Render() app.UI {
	return app.FieldSet().ID("roots-exclusion").Class("ask-modes").Body(
		app.Legend().Class("panel-subtitle").Text("Roots"),
		app.Label().Class("sb-check").For(rootsExcludedID).Body(
			disabledIf(checkedIf(app.Input().ID(rootsExcludedID).Type("checkbox"), x.Excluded), x.saving).
				OnChange(func(ctx app.Context, e app.Event) { x.save(ctx.JSSrc().Get("checked").Bool()) }),
			app.Text(" Hide my roots from this server"),
		),
		app.P().Class("field-help").Text("A server you hide them from sees an empty list."),
		app.P().ID("roots-exclusion-error").Class("sb-error").Role("alert").Text(x.problem),
	)
}

// show sets the box after the render; see ElicitModes.showModes.
func (x *RootsExclusion) show(ctx app.Context) {
	on := x.Excluded
	ctx.Defer(func(app.Context) { setDOMChecked(rootsExcludedID, on) })
}

func (x *RootsExclusion) save(excluded bool) {
	x.saving, x.problem = true, ""
	send(wire.OpExcludeRoots, wire.ExcludeRootsArgs{Server: x.ServerID, Excluded: excluded}, func(r store.Reply) {
		x.later(func(ctx app.Context) {
			x.saving = false
			if r.Err != nil {
				x.problem = opFailure("Could not change who sees your roots: ", r.Err)
			}
			x.show(ctx)
		})
	})
}
