package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// What is common to the cards of asks: the frame that names the asking
// server, the message, the deadline and the relay's refusal of an answer.

// askCardID is the id of an ask's card.
func askCardID(ask string) string { return "ask-" + ask }

// askTitleID is the id of the heading that names the asking server.
func askTitleID(ask string) string { return "ask-" + ask + "-title" }

// askCardOf is the card of ask a, by its kind; live says whether the relay
// connection is live.
func askCardOf(a wire.Ask, st store.AskStatus, live bool) app.UI {
	switch a.Kind {
	case wire.AskURL:
		return &URLAskCard{Ask: a, Status: st, Live: live}
	case wire.AskSampling:
		return &SamplingAskCard{Ask: a, Status: st}
	}
	return &FormAskCard{Ask: a, Status: st}
}

// askCard is the frame of a card: the hooks the page and its tests use.
func askCard(a wire.Ask, kind wire.AskKind) app.HTMLSection {
	return app.Section().ID(askCardID(a.ID)).Class("ask-card").TabIndex(-1).
		DataSet("ask-id", a.ID).DataSet("kind", kind).DataSet("state", a.State).DataSet("server-id", a.Server).
		Aria("labelledby", askTitleID(a.ID))
}

// renderAskHead names the asking server, says what it asks, and shows the time left.
func renderAskHead(a wire.Ask, what string) app.UI {
	label := "Answer within"
	if a.State == wire.AskWaiting {
		label = "Waiting up to"
	}
	return app.Header().Class("ask-head").Body(
		app.H2().ID(askTitleID(a.ID)).Class("ask-title").Body(
			app.Span().Class("ask-server").Text(serverNameOf(a)),
			app.Span().Class("ask-what").Text(what),
		),
		hiddenIf(app.P().Class("ask-caller"), a.Agent == "").Text(askCallerText(a)),
		&Countdown{Deadline: a.Deadline, Created: a.Created, Label: label},
	)
}

// askCallerText says on whose behalf the server asks: an agent's call.
func askCallerText(a wire.Ask) string {
	if a.Agent == "" {
		return ""
	}
	if a.Tool == "" {
		return "Asked for the agent " + a.Agent
	}
	return "Asked during the agent " + a.Agent + "'s call of " + a.Tool
}

// renderAskMessage shows the server's message as text, in a box that
// scrolls when it is long.
func renderAskMessage(a wire.Ask) app.UI {
	return hiddenIf(app.Div().Class("ask-message"), a.Message == "").Text(a.Message)
}

// renderAskError shows why the relay refused this dashboard's last op on the ask.
func renderAskError(st store.AskStatus) app.UI {
	text := ""
	if st.Err != nil {
		text = askErrorText(st.Err)
	}
	return app.P().Class("ask-error", "sb-error").Role("alert").Text(text)
}

// askErrorText says in words why an answer was refused.
func askErrorText(e *wire.Error) string {
	switch e.Code {
	case wire.CodeNotFound:
		return "This request is no longer waiting: " + e.Message
	case wire.CodeBadRequest:
		return "The answer was refused: " + e.Message
	case store.CodeOffline:
		return "Not sent: " + e.Message
	}
	return opFailure("The answer could not be sent: ", e)
}

// serverNameOf names the asking server, even when the relay did not.
func serverNameOf(a wire.Ask) string {
	if a.ServerName == "" {
		return "A server"
	}
	return a.ServerName
}

// askButton is one of a card's buttons; sending disables them all, and the
// one whose op is on its way says so.
func askButton(class, label string, st store.AskStatus, mine string) app.HTMLButton {
	b := app.Button().Class(class, "sb-button").Type("button")
	b = disabledIf(b, st.Sending != "")
	if st.Sending != "" && st.Sending == mine {
		return b.Text("Sending…")
	}
	return b.Text(label)
}
