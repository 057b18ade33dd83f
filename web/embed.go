package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// EmbedPage is the dashboard inside another site (static/embed.js frames
// it): one of the views EmbedView*, signed in with the token the host page
// hands over (see embed_host.go), telling the host the events of
// embed_events.go. It shows asks like the dashboard does, and a "sign in
// again" state when the token expired and the host has not sent another.
type EmbedPage struct {
	app.Compo

	view     string // one of EmbedView*
	server   string // the server of the one-server view
	selected string // the server shown in the dashboard view
	framed   bool   // the page runs in a frame of a host page
}

// embedView returns the view a query names; the whole dashboard by default.
func embedView(v string) string {
	switch v {
	case EmbedViewServers, EmbedViewServer, EmbedViewQuestions:
		return v
	}
	return EmbedViewDashboard
}

// OnMount reads the view from the address, listens to the host page and
// connects once the host hands over a token.
func (p *EmbedPage) OnMount(ctx app.Context) {
	q := ctx.Page().URL().Query()
	p.view = embedView(q.Get(EmbedParamView))
	p.server = q.Get(EmbedParamServer)
	p.selected = p.server
	host := q.Get(EmbedParamHost)
	if !app.IsClient {
		return
	}
	w := app.Window()
	p.framed = host != "" && !w.Get("parent").Equal(w.JSValue())
	if !p.framed {
		return
	}
	ctx.Handle(actionSelect, func(ctx app.Context, a app.Action) {
		if id, ok := a.Value.(string); ok {
			p.selected = id
		}
	})
	startEmbed(host)
	connectPage(ctx, func(ctx app.Context) {
		if v := currentView(); v.Loaded && p.view == EmbedViewDashboard {
			p.selected = autoSelection(v.Snapshot.Servers, p.selected)
		}
		reportToHost()
	})
}

// Render implements app.Composer.
func (p *EmbedPage) Render() app.UI {
	v := currentView()
	status := v.Status
	if app.IsClient && p.framed && status == store.StatusConnecting && embedToken() == "" {
		status = embedAwaiting
	}
	root := app.Div().ID("switchboard").Class("sb-app", "sb-embed").
		DataSet("view", p.view).DataSet("status", string(status))
	if app.IsClient && !p.framed {
		return root.Body(app.P().ID("embed-unframed").Class("sb-banner", "is-error").Role("alert").
			Text("This page shows Switchboard inside another site. Open that site, or the relay's own dashboard."))
	}
	return root.Body(
		renderEmbedBanner(status),
		p.renderView(v),
	)
}

// embedAwaiting is the status shown while the host has not handed over a token.
const embedAwaiting store.Status = "awaiting-token"

// renderView renders the chosen view of v.
func (p *EmbedPage) renderView(v store.View) app.UI {
	live := v.Status == store.StatusLive
	asks := &AskStack{Asks: v.Snapshot.Asks, Status: v.AskStatus, Departed: v.Departed, Live: live}
	list := func(selected string) app.UI {
		return &ServerList{
			Servers: v.Snapshot.Servers, Catalog: v.Snapshot.Catalog, Selected: selected,
			Loaded: v.Loaded, SignedOut: v.Status == store.StatusSignedOut,
			Asking: asksPerServer(v.Snapshot.Asks), Auth: v.Auth,
		}
	}
	switch p.view {
	case EmbedViewQuestions:
		return app.Div().Class("sb-embed-questions").Body(
			asks,
			app.If(v.Loaded && pendingAsks(v.Snapshot.Asks) == 0, func() app.UI {
				return app.P().ID("no-questions").Class("sb-empty").Text("No questions waiting.")
			}),
		)
	case EmbedViewServers:
		return app.Div().Body(asks, list(""))
	case EmbedViewServer:
		asks.Asks = asksOf(v.Snapshot.Asks, p.server)
		return app.Div().Body(asks, renderDetail(v, p.server))
	}
	return app.Div().Body(
		header(v, false),
		asks,
		app.Div().Class("sb-main").Body(list(p.selected), renderDetail(v, p.selected)),
	)
}

// renderEmbedBanner says what stops the embed from showing the person's servers.
func renderEmbedBanner(status store.Status) app.UI {
	switch status {
	case embedAwaiting:
		return app.P().ID("embed-awaiting").Class("sb-banner").Role("status").Text("Waiting for this site to sign you in…")
	case store.StatusSignedOut:
		return app.Div().ID("signed-out").Class("sb-banner", "is-error").Role("alert").Body(
			app.P().Body(
				app.Strong().Text("Your session ended. "),
				app.Text("Sign in again to see your servers."),
			),
			app.Button().ID("sign-in-again").Class("sb-button", "is-primary").Type("button").Text("Sign in again").
				OnClick(func(ctx app.Context, e app.Event) { postHost(hostEvent{"type": msgSignedOut}) }),
		)
	}
	return nil
}

// pendingAsks counts the asks waiting for an answer.
func pendingAsks(asks []wire.Ask) int {
	n := 0
	for _, a := range asks {
		if a.State == wire.AskPending {
			n++
		}
	}
	return n
}

// asksOf returns the asks of one server.
func asksOf(asks []wire.Ask, server string) []wire.Ask {
	var out []wire.Ask
	for _, a := range asks {
		if a.Server == server {
			out = append(out, a)
		}
	}
	return out
}
