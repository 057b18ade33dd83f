package web

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// providerDemo is the provider of the scripted demo model, which is not an AI.
const providerDemo = "demo"

// chatModelRow is a configured model: what it is, whose key it uses, and a
// write-only form for the person's own key, which is never shown back.
type chatModelRow struct {
	app.Compo
	mounted

	Model     wire.ChatModel
	Index     int                   // its place in the list, for element ids
	OnChanged func(ctx app.Context) // the person's key was saved or removed

	busy    string // "Saving…" or "Removing…" while the op runs
	problem string
	note    string
}

// CompoID gives each model its own row, so that a key typed for one model
// is never sent for another.
func (r *chatModelRow) CompoID() string { return r.Model.Name }

// Render implements app.Composer.
func (r *chatModelRow) Render() app.UI {
	m := r.Model
	return app.Li().Class("chat-model").DataSet("model", m.Name).DataSet("provider", m.Provider).Body(
		app.Div().Class("chat-model-head").Body(
			app.Strong().Class("chat-model-name").Text(m.Name),
			app.Span().Class("chat-model-id").Text(modelLine(m)),
		),
		app.P().Class("chat-model-key-state").Text(modelKeyState(m)),
		app.If(m.Provider != providerDemo, r.renderForm),
	)
}

// renderForm is the write-only form of the person's key.
func (r *chatModelRow) renderForm() app.UI {
	m, id := r.Model, chatKeyID(r.Index)
	return app.Form().Class("chat-key-form").Attr("novalidate", true).OnSubmit(r.save).Body(
		app.Label().For(id).Text("Your key for "+m.Name),
		app.Div().Class("chat-key-row").Body(
			app.Input().ID(id).Class("chat-key").Type("password").AutoComplete(false).Spellcheck(false).
				Placeholder(choose(m.UserKey, "set; type a new one to replace it", "paste your key")).
				Aria("describedby", id+"-help"),
			disabledIf(app.Button().Class("chat-key-save", "sb-button", "is-primary").Type("submit"), r.busy != "").
				Text(choose(r.busy == "Saving…", r.busy, "Save")),
			app.If(m.UserKey, func() app.UI {
				return disabledIf(app.Button().Class("chat-key-remove", "sb-button").Type("button"), r.busy != "").
					Text(choose(r.busy == "Removing…", r.busy, "Remove")).
					OnClick(func(ctx app.Context, e app.Event) { r.send("") })
			}),
		),
		app.Small().ID(id+"-help").Class("field-help").Text("Kept sealed on the relay and never shown again."),
		app.P().Class("sb-error").Role("alert").Text(r.problem),
		app.P().Class("sb-note").Role("status").Text(r.note),
	)
}

// save sends the key typed.
func (r *chatModelRow) save(ctx app.Context, e app.Event) {
	e.PreventDefault()
	key := strings.TrimSpace(domValue(chatKeyID(r.Index)))
	if key == "" {
		r.problem, r.note = choose(r.Model.UserKey, "Type a new key to replace yours, or press Remove.", "Type your key first."), ""
		return
	}
	r.send(key)
}

// send stores key as the person's key for the model; an empty key removes it.
func (r *chatModelRow) send(key string) {
	if r.busy != "" {
		return
	}
	removing := key == ""
	r.busy, r.problem, r.note = choose(removing, "Removing…", "Saving…"), "", ""
	send(wire.OpSetModelKey, wire.ModelKeyArgs{Model: r.Model.Name, Key: key}, func(rep store.Reply) {
		r.later(func(ctx app.Context) {
			r.busy = ""
			if rep.Err != nil {
				r.problem = opFailure(choose(removing, "Could not remove your key: ", "Could not save your key: "), rep.Err)
				return
			}
			setDOMValue(chatKeyID(r.Index), "")
			r.note = keyChangedNote(removing, r.Model.Key)
			if r.OnChanged != nil {
				r.OnChanged(ctx)
			}
		})
	})
}

// chatKeyID is the id of a model's key input.
func chatKeyID(i int) string { return "chat-key-" + strconv.Itoa(i) }

// providerName names a model's provider for a person.
func providerName(p string) string {
	switch p {
	case "openai":
		return "OpenAI-compatible"
	case "anthropic":
		return "Anthropic"
	case providerDemo:
		return "Scripted demo"
	}
	return p
}

// modelLine is a model's provider and, when the relay names it, its model id.
func modelLine(m wire.ChatModel) string {
	if m.Model == "" {
		return providerName(m.Provider)
	}
	return providerName(m.Provider) + " · " + m.Model
}

// modelKeyState says whose key a model uses.
func modelKeyState(m wire.ChatModel) string {
	switch {
	case m.Provider == providerDemo:
		return "A scripted demo, not an AI: it needs no key."
	case m.UserKey && m.Key:
		return "Your own key is used instead of the operator's."
	case m.UserKey:
		return "Your own key is used."
	case m.Key:
		return "The operator set a key; you may use your own instead."
	}
	return "The operator set no key; add yours if the provider needs one."
}

// keyChangedNote says what a saved or removed key changed.
func keyChangedNote(removed, operatorKey bool) string {
	switch {
	case !removed:
		return "Saved. Your key is used from now on."
	case operatorKey:
		return "Removed; the operator's key is used again."
	}
	return "Removed."
}
