package web

import (
	"strings"

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
			infoRow("Transport", string(s.Transport)),
			infoRow("URL", s.URL),
			infoRow("State", string(s.State)),
		),
		&Ping{ServerID: s.ID},
		renderCapabilities(s),
		renderAuthInfo(s),
		&AskModes{ServerID: s.ID, Modes: askModesOf(s)},
		&RootsExclusion{ServerID: s.ID, Excluded: s.RootsExcluded},
		app.H3().Class("list-title").Text("Instructions"),
		app.If(s.Instructions != "", func() app.UI {
			return app.Pre().Class("info-instructions", "prose-block").Text(s.Instructions)
		}).Else(func() app.UI {
			return app.P().Class("info-instructions", "sb-empty").Text("The server gave no instructions.")
		}),
	)
}

// renderAuthInfo shows the server's OAuth state, never a secret, and the
// form for pre-registered client credentials.
func renderAuthInfo(s wire.Server) app.UI {
	a := s.Auth
	if a == nil && s.State != wire.StateAuthenticating {
		return app.Div().Class("auth-info").Body(
			app.H3().Class("list-title").Text("Authorization"),
			app.P().Class("sb-empty").Text("This server does not use OAuth."),
		)
	}
	if a == nil {
		a = &wire.AuthState{Required: true}
	}
	return app.Div().Class("auth-info").Body(
		app.H3().Class("list-title").Text("Authorization"),
		app.Dl().Class("info-list").Body(
			infoRow("OAuth", authWords(*a)),
			infoRow("Issuer", orNotYet(a.Issuer)),
			infoRow("Scopes", orNone(strings.Join(a.Scopes, " "))),
			infoRow("Client id", orNotYet(a.ClientID)),
			infoRow("Client secret", choose(a.ClientSecretSet, "set", "not set")),
			app.If(a.Error != "", func() app.UI { return infoRow("Last error", a.Error) }),
		),
		&ClientForm{ServerID: s.ID, SecretSet: a.ClientSecretSet},
	)
}

// authWords says whether the relay may call the server.
func authWords(a wire.AuthState) string {
	switch {
	case a.Authorized:
		return "authorized"
	case a.Required:
		return "required, not authorized yet"
	}
	return "not required"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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

// askModesOf is the ask modes of s; none when the relay did not say.
func askModesOf(s wire.Server) wire.AskModes {
	if s.AskModes == nil {
		return wire.AskModes{Sampling: wire.SamplingOff}
	}
	return *s.AskModes
}
