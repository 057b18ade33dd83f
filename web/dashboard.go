package web

import (
	"sync/atomic"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Actions components post to the dashboard.
const (
	// actionSelect selects a server; its value is the server id.
	actionSelect = "switchboard.select-server"
)

// serversRenderedMark is the performance mark made once the first
// snapshot's server list is on screen.
const serversRenderedMark = "switchboard:servers-rendered"

// Routes registers the dashboard's pages. The wasm main and the relay's
// handler (which prerenders them) both call it.
func Routes() {
	app.Route("/", func() app.Composer { return &Dashboard{} })
	app.Route(EmbedPath, func() app.Composer { return &EmbedPage{} })
	pageRoutes()
}

// Dashboard is the page: header, the asks waiting, server list and the
// selected server, whose id the page's address keeps.
type Dashboard struct {
	app.Compo

	selected    string // id of the server shown in the detail
	marked      bool   // the servers-rendered mark was made
	updateReady bool   // a new version of the dashboard was downloaded
}

// OnMount selects the server the page's address names, connects the page
// to the relay and re-renders on every change.
func (d *Dashboard) OnMount(ctx app.Context) {
	d.selected = selectedInURL()
	ctx.Handle(actionSelect, func(ctx app.Context, a app.Action) {
		if id, ok := a.Value.(string); ok {
			d.selected = id
			keepSelectedInURL(id)
			revealDetail(ctx)
		}
	})
	var scheduled atomic.Bool // changes that come in a burst cost one render
	changed := func() {
		if scheduled.CompareAndSwap(false, true) {
			ctx.Dispatch(func(ctx app.Context) {
				scheduled.Store(false)
				d.autoSelect()
				d.markServersRendered(ctx)
				relayChanged()
			})
		}
	}
	connectRelay(changed)
	changed() // the snapshot may have come before the mount (Preconnect)
}

// autoSelect selects the first server when none of the list is selected.
func (d *Dashboard) autoSelect() {
	v := currentView()
	if !v.Loaded {
		return
	}
	if id := autoSelection(v.Snapshot.Servers, d.selected); id != d.selected {
		d.selected = id
		keepSelectedInURL(id)
	}
}

// OnAppUpdate offers to reload into the new version.
func (d *Dashboard) OnAppUpdate(ctx app.Context) {
	d.updateReady = true
}

// markServersRendered makes the performance mark after the render that
// first shows a snapshot's server list.
func (d *Dashboard) markServersRendered(ctx app.Context) {
	if d.marked || !currentView().Loaded {
		return
	}
	d.marked = true
	ctx.Defer(func(app.Context) {
		if perf := app.Window().Get("performance"); perf.Truthy() {
			perf.Call("mark", serversRenderedMark)
		}
	})
}

// Render implements app.Composer.
func (d *Dashboard) Render() app.UI {
	v := currentView()
	selected := d.selected
	if v.Loaded { // as autoSelect will: so a prerendered page shows the detail the wasm draws
		selected = autoSelection(v.Snapshot.Servers, selected)
	}
	root := pageRoot(app.Div().ID("switchboard").Class("sb-app"), v)
	return root.Body(
		renderHeader(v),
		renderNav(ServersPath),
		renderBanners(v.Status, d.updateReady),
		&AskStack{Asks: v.Snapshot.Asks, Status: v.AskStatus, Departed: v.Departed, Live: v.Status == store.StatusLive},
		app.Div().Class("sb-main").Body(
			&ServerList{
				Servers: v.Snapshot.Servers, Catalog: v.Snapshot.Catalog, Selected: selected,
				Loaded: v.Loaded, SignedOut: v.Status == store.StatusSignedOut,
				Asking: asksPerServer(v.Snapshot.Asks), Auth: v.Auth,
			},
			renderDetail(v, selected),
		),
		renderFooter(),
	)
}

// asksPerServer counts the asks waiting from each server.
func asksPerServer(asks []wire.Ask) map[string]int {
	var n map[string]int
	for _, a := range asks {
		if n == nil {
			n = map[string]int{}
		}
		n[a.Server]++
	}
	return n
}

// renderBanners shows what needs the person's attention above everything.
func renderBanners(status store.Status, updateReady bool) app.UI {
	return app.Div().Class("sb-banners").Body(
		app.If(status == store.StatusSignedOut, func() app.UI {
			return app.Div().ID("signed-out").Class("sb-banner", "is-error").Role("alert").Body(
				app.P().Body(
					app.Strong().Text("Signed out. "),
					app.A().ID("to-login").Href("/login").Text("Sign in"),
					app.Text(", or on the relay's machine run "),
					app.Code().Text("switchboard login"),
					app.Text(" and open the link it prints."),
				),
			)
		}),
		app.If(updateReady, func() app.UI {
			return app.Div().Class("sb-banner").Role("status").Body(
				app.P().Text("A new version of the dashboard is ready."),
				app.Button().Class("sb-button").Type("button").Text("Reload").
					OnClick(func(ctx app.Context, e app.Event) { ctx.Reload() }),
			)
		}),
	)
}

// stackedLayout matches the widths at which the detail sits below the list
// (see .sb-main in switchboard.css).
const stackedLayout = "(max-width: 760px)"

// revealDetail scrolls the selected server into view when the layout is
// stacked, where it would otherwise be below the whole list.
func revealDetail(ctx app.Context) {
	ctx.Defer(func(app.Context) {
		w := app.Window()
		if !w.Call("matchMedia", stackedLayout).Get("matches").Bool() {
			return
		}
		if el := w.GetElementByID("server-detail"); el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "start"})
		}
	})
}
