package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// renderInfo shows what the server said about itself when it connected.
func renderInfo(s wire.Server) app.UI {
	var name, version string
	if s.Info != nil {
		name, version = titleOr(s.Info.Title, s.Info.Name), s.Info.Version
		if s.Info.Title != "" && s.Info.Title != s.Info.Name {
			name += " (" + s.Info.Name + ")"
		}
	}
	return app.Div().Class("info-tab").Body(
		app.Dl().Class("info-list").Body(
			infoRow("Server", orNotYet(name)),
			infoRow("Version", orNotYet(version)),
			infoRow("Protocol version", orNotYet(s.ProtocolVersion)),
			infoRow("Transport", s.Transport),
			infoRow("URL", s.URL),
			infoRow("State", s.State),
		),
		app.H3().Class("list-title").Text("Instructions"),
		app.If(s.Instructions != "", func() app.UI {
			return app.Pre().Class("info-instructions", "prose-block").Text(s.Instructions)
		}).Else(func() app.UI {
			return app.P().Class("info-instructions", "sb-empty").Text("The server gave no instructions.")
		}),
	)
}

func infoRow(term, value string) app.UI {
	return app.Div().Class("info-row").Body(app.Dt().Text(term), app.Dd().Text(value))
}

func orNotYet(s string) string {
	if s == "" {
		return "not known yet"
	}
	return s
}
