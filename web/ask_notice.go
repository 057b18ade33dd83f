package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// renderDeparted is the short notice left in the place of an ask that went
// while it was shown.
func renderDeparted(d store.Departed) app.UI {
	a := d.Ask
	class := "ask-gone"
	if d.Note != "" || d.Ask.State == wire.AskRefused {
		class = "ask-refused"
	}
	return app.Div().ID(askCardID(a.ID)).Class("ask-notice").
		DataSet("ask-id", a.ID).DataSet("server-id", a.Server).Body(
		app.P().Class("ask-notice-from").Body(
			app.Span().Class("ask-server").Text(serverNameOf(a)),
		),
		app.P().Class(class).Text(departedText(d)),
	)
}

// departedText says why an ask's card went.
func departedText(d store.Departed) string {
	switch {
	case d.Note != "":
		return d.Note
	case d.Err != nil && d.Err.Code == store.CodeConnectionLost:
		return "This request is no longer waiting; the connection was lost before the relay said whether it took your answer."
	case d.Err != nil:
		return "This request is no longer waiting; your answer was not taken (" + d.Err.Message + ")."
	case d.Ask.State == wire.AskRefused:
		return refusedText(d.Ask.Refusal)
	case d.Ask.State == wire.AskWaiting:
		return "The server stopped waiting for the page you opened."
	}
	return "This request is no longer waiting."
}
