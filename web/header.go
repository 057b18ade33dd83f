package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web/store"
)

// statusWords are what the header says for each connection state.
var statusWords = map[store.Status]string{
	store.StatusConnecting:   "Connecting…",
	store.StatusLive:         "Live",
	store.StatusReconnecting: "Reconnecting…",
	store.StatusSignedOut:    "Signed out",
}

// renderHeader shows the product, the relay connection, who is signed in
// and the sign-out control.
func renderHeader(v store.View) app.UI { return header(v, true) }

// header is the header, with the sign-out control when signOut (not in an
// embedding site's frame, whose site owns the session).
func header(v store.View, signOut bool) app.UI {
	signedIn := v.Snapshot.User != "" && v.Status != store.StatusSignedOut
	return app.Header().Class("sb-header").Body(
		app.Div().Class("sb-brand").Body(
			app.Img().Class("sb-logo").Src(IconSVGPath).Aria("hidden", "true").Width(24).Height(24),
			app.H1().Class("sb-name").Text("Switchboard"),
		),
		app.Div().Class("sb-session").Body(
			app.Span().ID("relay-status").Class("sb-status").
				DataSet("state", string(v.Status)).
				Role("status").Aria("live", "polite").
				Title("Connection to the relay").
				Text(statusWords[v.Status]),
			&RootsEditor{Roots: v.Snapshot.Roots},
			hiddenIf(app.Span().Class("sb-user"), !signedIn).Body(
				app.Span().Class("sb-user-label").Text("Signed in as "),
				app.Span().ID("user").Text(v.Snapshot.User),
			),
			app.If(signOut && signedIn, func() app.UI {
				return app.Form().Class("sb-sign-out").Method("post").Action("/logout").Body(
					app.Button().ID("sign-out").Type("submit").Class("sb-button").Text("Sign out"),
				)
			}),
		),
	)
}
