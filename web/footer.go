package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// VersionEnv is the go-app environment variable that carries the relay's
// build version to the page (app.Getenv).
const VersionEnv = "SWITCHBOARD_VERSION"

// renderFooter names the build of the relay the dashboard talks to.
func renderFooter() app.UI {
	v := app.Getenv(VersionEnv)
	if v == "" {
		return app.Footer().Class("sb-footer")
	}
	return app.Footer().Class("sb-footer").Body(
		app.Small().ID("version").Text("Switchboard " + v),
	)
}
