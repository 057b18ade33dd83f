package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web/store"
)

// Handing a sampling request to the agent whose call raised it. When the
// relay offers it (the agent's key allows it and its client declares
// sampling), a sampling card has one more action: the request goes, as
// the server sent it, to the agent's own client, whose reply is sent to
// the server. Nothing is sent without this click; a failure is shown on
// the card (its ask error), which stays to be answered another way.

// canForward reports whether the card offers handing the request over.
func (c *SamplingAskCard) canForward() bool { return c.Ask.Forward && c.Ask.Agent != "" }

// renderForward is the forward button, when the relay offers forwarding.
func (c *SamplingAskCard) renderForward(busy bool) app.UI {
	if !c.canForward() {
		return nil
	}
	label := "Let " + c.Ask.Agent + " answer"
	if c.Status.Sending == store.AskForward {
		label = "Waiting for " + c.Ask.Agent + "…"
	}
	return disabledIf(app.Button().Class("sampling-forward", "sb-button").Type("button"), busy).
		Title("Send this request, as the server sent it, to "+c.Ask.Agent+"'s own client; its reply goes to the server").
		Aria("describedby", c.forwardNoteID()).
		Text(label).
		OnClick(func(ctx app.Context, e app.Event) { c.forward() }, app.EventScope(c.Ask.ID))
}

// renderForwardNote says what handing the request over does.
func (c *SamplingAskCard) renderForwardNote() app.UI {
	if !c.canForward() {
		return nil
	}
	return app.P().ID(c.forwardNoteID()).Class("sampling-forward-note", "field-help").Text(
		c.Ask.Agent + " made the call that raised this request, and its own client can answer sampling requests. " +
			"Let " + c.Ask.Agent + " answer sends it the request; its reply goes to the server.")
}

func (c *SamplingAskCard) forwardNoteID() string { return "ask-" + c.Ask.ID + "-forward-note" }

// forward hands the request to the agent; the card goes once it answered.
func (c *SamplingAskCard) forward() {
	if c.Status.Sending != "" || c.drafting {
		return
	}
	if r := relay(); r != nil {
		r.ForwardAsk(c.Ask.ID)
	}
}
