package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Handing a sampling request to the agent whose call raised it. When the
// relay offers it (the agent's key allows it and its client declares
// sampling), a sampling card has one more action: the request goes, as
// the server sent it, to the agent's own client, whose reply is sent to
// the server. Nothing is sent without this click; a failure is shown on
// the card, which stays to be answered another way.

// canForward reports whether the card offers handing the request over.
func (c *SamplingAskCard) canForward() bool { return c.Ask.Forward && c.Ask.Agent != "" }

// forwardLabel is the text of the forward button.
func (c *SamplingAskCard) forwardLabel() string {
	if c.forwarding {
		return "Waiting for " + c.Ask.Agent + "…"
	}
	return "Let " + c.Ask.Agent + " answer"
}

// renderForward is the forward button, when the relay offers forwarding.
func (c *SamplingAskCard) renderForward(busy bool) app.UI {
	if !c.canForward() {
		return nil
	}
	return disabledIf(app.Button().Class("sampling-forward", "sb-button").Type("button"), busy).
		Title("Send this request, as the server sent it, to "+c.Ask.Agent+"'s own client; its reply goes to the server").
		Aria("describedby", c.forwardNoteID()).
		Text(c.forwardLabel()).
		OnClick(func(ctx app.Context, e app.Event) { c.forward() }, app.EventScope(c.Ask.ID))
}

// renderForwardNote says what handing over does, or why it failed.
func (c *SamplingAskCard) renderForwardNote() app.UI {
	if !c.canForward() {
		return nil
	}
	text := c.forwardNote
	if text == "" {
		text = c.Ask.Agent + " made the call that raised this request, and its own client can answer sampling requests. " +
			"Let " + c.Ask.Agent + " answer sends it the request; its reply goes to the server."
	}
	return app.P().ID(c.forwardNoteID()).Class("sampling-forward-note", "field-help").Role("status").Text(text)
}

func (c *SamplingAskCard) forwardNoteID() string { return "ask-" + c.Ask.ID + "-forward-note" }

// forward hands the request to the agent; the card goes once it answered.
func (c *SamplingAskCard) forward() {
	if c.forwarding || c.Status.Sending != "" || c.drafting {
		return
	}
	c.forwarding, c.forwardNote = true, ""
	send(wire.OpForwardAsk, wire.AskArgs{Ask: c.Ask.ID}, func(r store.Reply) {
		c.later(func(app.Context) {
			c.forwarding = false
			if r.Err != nil {
				c.forwardNote = opFailure(c.Ask.Agent+" could not answer: ", r.Err)
			}
		})
	})
}
