package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// The agent key setting that lets the person hand a sampling request raised
// during the agent's call to the agent's own client (off by default).

// keyForwardBox is the id of the setting's checkbox in the key form.
const keyForwardBox = "key-forward-sampling"

// keyForwardText says in the key list that a key has the setting.
const keyForwardText = "Sampling requests from its calls may be handed to its own client"

// renderForwardChoice is the setting in the key form.
func renderForwardChoice() app.UI {
	return app.Div().Class("sb-field").Body(
		app.Label().Class("sb-choice").Body(
			app.Input().ID(keyForwardBox).Type("checkbox").Name("forwardSampling").Aria("describedby", "key-forward-help"),
			app.Text(" Let me hand sampling requests to this agent"),
		),
		app.P().ID("key-forward-help").Class("sb-note").Text(
			"When a server asks for a model reply during this agent's call, its card can offer to send the request to the agent's own client, "+
				"if that client supports sampling. Nothing is sent until you press the button on the card."),
	)
}
