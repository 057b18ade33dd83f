package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// The popup the authorization page opens in: its name (one window for
// every authorization) and its features.
const (
	popupName     = "switchboard-oauth"
	popupFeatures = "popup,width=600,height=800"
)

// renderAuthorize is what a server in state authenticating offers: the
// Authorize button, why the last authorization failed, and how the one
// started here goes.
func renderAuthorize(s wire.Server, flow store.AuthFlow) app.UI {
	id := s.ID
	authErr := ""
	if s.Auth != nil {
		authErr = s.Auth.Error
	}
	return app.Div().Class("authorize").DataSet("server-id", id).Body(
		disabledIf(app.Button().Class("authorize-server", "sb-button", "is-primary").Type("button"), flow.Sending).
			Aria("label", choose(flow.Sending, "Authorizing Switchboard to use "+s.Name+"…", "Authorize Switchboard to use "+s.Name)).
			Text(choose(flow.Sending, "Authorizing…", "Authorize")).
			OnClick(func(ctx app.Context, e app.Event) { startAuthorize(id) }, app.EventScope(id)),
		app.If(authErr != "", func() app.UI {
			return app.P().Class("auth-error").Text("The last authorization failed: " + authErr)
		}),
		app.If(flow.Err != nil, func() app.UI {
			return app.P().Class("authorize-error").Role("alert").Text(authorizeErrorText(flow.Err))
		}),
		app.If(flow.Opened, func() app.UI {
			return app.P().Class("authorize-note").Role("status").
				Text("Sign in and approve in the window that opened; this page updates by itself.")
		}),
		app.If(flow.Link != "", func() app.UI {
			return app.P().Class("authorize-note").Role("status").Body(
				app.Text("The browser blocked the sign-in window. "),
				app.A().Class("authorize-link").Href(flow.Link).Target("_blank").Rel("noopener noreferrer").
					Text("Open the sign-in page"),
			)
		}),
	)
}

// authorizeErrorText says in words why an authorization could not start.
func authorizeErrorText(e *wire.Error) string {
	return opFailure("Could not start the authorization: ", e)
}

// startAuthorize has the client ask for the authorization page. The client
// opens the popup while still in the click (later, a popup blocker would
// stop it), and only when it sends a request: a click while one is on its
// way opens nothing, since opening the named popup again would blank (or,
// closed, lose) the one that request will use.
func startAuthorize(server string) {
	c := relay()
	if c == nil {
		return
	}
	c.Authorize(server, openAuthPopup)
}

// browserPopup is a window opened by window.open; w is null when the
// browser blocked it.
type browserPopup struct{ w app.Value }

// Open implements [store.Popup]. The popup loses its opener first, so the
// authorization server's page cannot navigate the dashboard.
func (p browserPopup) Open(url string) bool {
	if !p.open() {
		return false
	}
	p.w.Set("opener", nil)
	p.w.Get("location").Set("href", url)
	return true
}

// Close implements [store.Popup].
func (p browserPopup) Close() {
	if p.open() {
		p.w.Call("close")
	}
}

func (p browserPopup) open() bool {
	return p.w != nil && p.w.Truthy() && !p.w.Get("closed").Bool()
}
