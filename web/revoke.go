package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// revokeButton is a Revoke button for one key or grant or, once pressed,
// the question that confirms it.
type revokeButton struct {
	Name     string // what is revoked, for the button's label
	Question string // the confirming question
	Class    string // the button's class; the confirming button has Class+"-confirm"

	Confirming bool // the question is shown
	Revoking   bool // the revocation is on its way

	Ask, Confirm, Keep func() // pressed Revoke, Yes, and Keep it
}

func (r revokeButton) render() app.UI {
	if !r.Confirming {
		return app.Button().Class("sb-button", "is-danger", r.Class).Type("button").
			Aria("label", "Revoke "+r.Name).Text("Revoke").
			OnClick(func(app.Context, app.Event) { r.Ask() })
	}
	return app.Div().Class("sb-confirm").Role("group").Aria("label", "Confirm revocation").Body(
		app.Span().Text(r.Question),
		disabledIf(app.Button().Class("sb-button", "is-danger", r.Class+"-confirm").Type("button"), r.Revoking).
			Text(choose(r.Revoking, "Revoking…", "Yes, revoke")).
			OnClick(func(app.Context, app.Event) { r.Confirm() }),
		app.Button().Class("sb-button", "is-quiet").Type("button").Text("Keep it").
			OnClick(func(app.Context, app.Event) { r.Keep() }),
	)
}
