package web

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// msgFixFields is what a refused submit says above the buttons.
const msgFixFields = "Some answers need fixing (marked above); nothing was sent."

// FormAskCard is a server's request to fill in a form: every field of the
// requested schema, checked as the person types by the validator the relay
// uses, and Submit, Decline and Cancel. The form is its own review: what
// is sent is what the fields show, empty optional fields left out.
type FormAskCard struct {
	app.Compo

	Ask    wire.Ask
	Status store.AskStatus

	form     *schema.Form
	unusable string             // why the form cannot be shown
	errs     schema.FieldErrors // the errors shown, of touched fields
	touched  map[string]bool    // fields left once, or all after a submit
	problem  string             // why a submit sent nothing
}

// CompoID keeps a card with its ask.
func (c *FormAskCard) CompoID() string { return c.Ask.ID }

// parse parses the requested schema, once: the schema of an ask does not
// change. Render calls it, so that the card also draws without being mounted.
func (c *FormAskCard) parse() {
	if c.touched != nil {
		return
	}
	c.touched = map[string]bool{}
	if c.Ask.Kind != wire.AskForm {
		c.unusable = "Switchboard cannot show this kind of request (" + string(c.Ask.Kind) + "). Decline or cancel it."
		return
	}
	form, err := schema.Parse(c.Ask.Schema)
	if err != nil {
		c.unusable = "The form cannot be shown (" + err.Error() + "). Decline or cancel it."
		return
	}
	c.form = form
}

// Render implements app.Composer.
func (c *FormAskCard) Render() app.UI {
	c.parse()
	a, st := c.Ask, c.Status
	var fields []schema.Field
	var title, description string
	if c.form != nil {
		fields, title, description = c.form.Fields, c.form.Title, c.form.Description
	}
	return askCard(a, wire.AskForm).Body(
		renderAskHead(a, "asks you to fill in a form"),
		renderAskMessage(a),
		app.Form().Class("ask-form").Attr("novalidate", true).OnSubmit(c.submit, app.EventScope(a.ID)).Body(
			hiddenIf(app.P().Class("ask-form-title"), title == "").Text(title),
			hiddenIf(app.P().Class("ask-form-description"), description == "").Text(description),
			app.Range(fields).Slice(func(i int) app.UI { return c.renderField(i, fields[i]) }),
			hiddenIf(app.P().Class("ask-unusable", "sb-error"), c.unusable == "").Text(c.unusable),
			app.P().Class("ask-problem", "sb-error").Role("alert").Text(c.problem),
			renderAskError(st),
			app.Div().Class("ask-actions").Body(
				disabledIf(app.Button().Class("ask-accept", "sb-button", "is-primary").Type("submit"),
					st.Sending != "" || c.form == nil).
					Text(choose(st.Sending == string(wire.ActionAccept), "Sending…", "Submit")),
				askButton("ask-decline", "Decline", st, string(wire.ActionDecline)).
					Title("Tell the server you will not give this information").
					OnClick(func(ctx app.Context, e app.Event) { c.answer(wire.ActionDecline) }, app.EventScope(a.ID)),
				askButton("ask-cancel", "Cancel", st, string(wire.ActionCancel)).Class("is-quiet").
					Title("Close the request without answering").
					OnClick(func(ctx app.Context, e app.Event) { c.answer(wire.ActionCancel) }, app.EventScope(a.ID)),
			),
		),
	)
}

// answer sends an answer without content.
func (c *FormAskCard) answer(action wire.Action) {
	if r := relay(); r != nil {
		r.AnswerAsk(c.Ask.ID, action, nil)
	}
}

// submit checks the whole form and sends it accepted, or shows what to fix
// and sends nothing.
func (c *FormAskCard) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if c.form == nil || c.Status.Sending != "" {
		return
	}
	values, errs := c.collect()
	for _, fd := range c.form.Fields {
		c.touched[fd.Name] = true
	}
	c.errs = errs
	if len(errs) > 0 {
		c.problem = msgFixFields
		c.focusFirstError(ctx)
		return
	}
	c.problem = ""
	if r := relay(); r != nil {
		r.AnswerAsk(c.Ask.ID, wire.ActionAccept, values)
	}
}

// edited checks the form again after a field changed; touch marks the
// field as left, from when on its errors show.
func (c *FormAskCard) edited(name string, touch bool) {
	if c.form == nil {
		return
	}
	if touch {
		c.touched[name] = true
	}
	if !c.touched[name] {
		return
	}
	_, errs := c.collect()
	shown := schema.FieldErrors{}
	for n := range c.touched {
		if msg := errs[n]; msg != "" {
			shown[n] = msg
		}
	}
	c.errs = shown
	if len(errs) == 0 {
		c.problem = ""
	}
}

// collect reads the form and returns the answer's values and what is wrong.
func (c *FormAskCard) collect() (map[string]any, schema.FieldErrors) {
	values, bad := answerContent(c.form, c.readEntries(), time.Local)
	return values, checkAnswer(c.form, values, bad)
}

// focusFirstError moves the focus to the first field at fault.
func (c *FormAskCard) focusFirstError(ctx app.Context) {
	for i, fd := range c.form.Fields {
		if c.errs[fd.Name] == "" {
			continue
		}
		id := fieldID(c.Ask.ID, i)
		if fd.Kind == schema.MultiSelect || usesRadios(fd) {
			id = optionID(c.Ask.ID, i, 0)
		}
		focusLater(ctx, id)
		return
	}
}

// readEntries reads what the fields hold from the page.
func (c *FormAskCard) readEntries() map[string]fieldEntry {
	out := make(map[string]fieldEntry, len(c.form.Fields))
	for i, fd := range c.form.Fields {
		var e fieldEntry
		switch {
		case fd.Kind == schema.Boolean:
			e.checked = elementChecked(fieldID(c.Ask.ID, i))
		case fd.Kind == schema.MultiSelect || usesRadios(fd):
			for j, o := range fd.Options {
				if elementChecked(optionID(c.Ask.ID, i, j)) {
					e.chosen = append(e.chosen, o.Value)
				}
			}
			if fd.Kind == schema.SingleSelect && len(e.chosen) > 0 {
				e.text = e.chosen[0]
			}
		case fd.Kind == schema.SingleSelect:
			// The first option is "Choose…", with no value: go-app drops
			// empty attributes, so the option's value would be its text.
			el := app.Window().GetElementByID(fieldID(c.Ask.ID, i))
			if j := el.Get("selectedIndex"); el.Truthy() && j.Int() > 0 && j.Int() <= len(fd.Options) {
				e.text = fd.Options[j.Int()-1].Value
			}
		default:
			el := app.Window().GetElementByID(fieldID(c.Ask.ID, i))
			if el.Truthy() {
				e.text = el.Get("value").String()
				e.badInput = el.Get("validity").Get("badInput").Truthy()
			}
		}
		out[fd.Name] = e
	}
	return out
}

// elementChecked reports whether the checkbox or radio button with id is checked.
func elementChecked(id string) bool {
	el := app.Window().GetElementByID(id)
	return el.Truthy() && el.Get("checked").Truthy()
}

// leavingForAButton reports whether a blur moves the focus to one of a
// card's buttons (Submit, Decline, Cancel), where showing an error would
// move the button from under the pointer and lose the click. Submit checks
// every field anyway.
func leavingForAButton(e app.Event) bool {
	to := e.Get("relatedTarget")
	return to.Truthy() && to.Get("matches").Truthy() && to.Call("matches", ".ask-accept, .ask-decline, .ask-cancel").Bool()
}
