package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// AskModes lets a person choose what a server may ask of them: forms,
// requests to open a URL, and sampling (off, a card to answer, or the
// relay's model answering by itself). What is left out is refused by the
// relay before it reaches anyone. Changing it reconnects the server.
type AskModes struct {
	app.Compo
	mounted

	ServerID string
	Modes    wire.AskModes // as the relay offers them now

	saving  bool
	problem string
}

// The ids of the inputs.
const (
	elicitFormID    = "elicit-form"
	elicitURLID     = "elicit-url"
	samplingIDStart = "sampling-" // + mode
)

// samplingChoices are the sampling modes, with their labels.
var samplingChoices = []struct {
	mode  wire.SamplingMode
	label string
}{
	{wire.SamplingOff, "Off: the server cannot ask for model replies"},
	{wire.SamplingAsk, "Ask me: show each request as a card"},
	{wire.SamplingModel, "Answer sampling with the model, without asking"},
}

// CompoID gives each server its own control.
func (m *AskModes) CompoID() string { return m.ServerID }

// OnMount shows the relay's modes.
func (m *AskModes) OnMount(ctx app.Context) {
	m.mounted.OnMount(ctx)
	m.showModes(ctx)
}

// OnUpdate shows the modes the relay sent; it runs only when they changed.
func (m *AskModes) OnUpdate(ctx app.Context) { m.showModes(ctx) }

// Render implements app.Composer.
func (m *AskModes) Render() app.UI {
	cur := m.current()
	box := func(id, label string, on bool, set func(bool) wire.SetAskModesArgs) app.UI {
		input := disabledIf(checkedIf(app.Input().ID(id).Type("checkbox"), on), m.saving).
			OnChange(func(ctx app.Context, e app.Event) { m.save(set(ctx.JSSrc().Get("checked").Bool())) })
		return app.Label().Class("sb-check").For(id).Body(input, app.Text(" "+label))
	}
	return app.FieldSet().ID("ask-modes").Class("ask-modes").Body(
		app.Legend().Class("panel-subtitle").Text("Questions this server may ask"),
		box(elicitFormID, "Forms", cur.Form, func(on bool) wire.SetAskModesArgs { a := cur; a.Form = on; return a }),
		box(elicitURLID, "Requests to open a web page", cur.URL, func(on bool) wire.SetAskModesArgs { a := cur; a.URL = on; return a }),
		app.FieldSet().ID("sampling-modes").Class("sampling-modes").DataSet("sampling", m.Modes.Sampling).Body(
			app.Legend().Class("field-label").Text("Requests for a model reply (sampling)"),
			app.Range(samplingChoices).Slice(func(i int) app.UI {
				c := samplingChoices[i]
				id := samplingIDStart + string(c.mode)
				noModel := c.mode == wire.SamplingModel && m.Modes.Model == ""
				input := disabledIf(checkedIf(app.Input().ID(id).Type("radio").Name("sampling-"+m.ServerID).Value(c.mode), cur.Sampling == c.mode), m.saving || noModel).
					OnChange(func(ctx app.Context, e app.Event) { a := cur; a.Sampling = c.mode; m.save(a) })
				return app.Label().Class("sb-check").For(id).Body(input, app.Text(" "+c.label))
			}),
			app.P().ID("sampling-model-help").Class("field-help").Text(modelHelp(m.Modes.Model)),
		),
		app.P().Class("field-help").Text("Changing this reconnects the server."),
		app.P().ID("elicit-error").Class("sb-error").Role("alert").Text(m.problem),
	)
}

// modelHelp says which model answers, or how to configure one.
func modelHelp(model string) string {
	if model == "" {
		return "No model is configured. " + howToConfigureModel
	}
	return "The relay's model is " + model + "."
}

// howToConfigureModel says how to give the relay a model.
const howToConfigureModel = "To use one, start the relay with --model-url and --model-name, and the key in SWITCHBOARD_MODEL_KEY or --model-key-file."

// current is the relay's modes as the arguments of a change.
func (m *AskModes) current() wire.SetAskModesArgs {
	sampling := m.Modes.Sampling
	if sampling == "" {
		sampling = wire.SamplingAsk
	}
	return wire.SetAskModesArgs{Server: m.ServerID, Form: m.Modes.Form, URL: m.Modes.URL, Sampling: sampling}
}

// showModes ticks the boxes as the relay's modes are, after the render.
// go-app sets a checkbox's checked property when the attribute comes and
// only removes the attribute when it goes, which leaves a clicked box
// ticked; and a render that changes nothing touches nothing, which leaves a
// box as clicked after a refused change.
func (m *AskModes) showModes(ctx app.Context) {
	cur := m.current()
	ctx.Defer(func(app.Context) {
		setDOMChecked(elicitFormID, cur.Form)
		setDOMChecked(elicitURLID, cur.URL)
		for _, c := range samplingChoices {
			setDOMChecked(samplingIDStart+string(c.mode), cur.Sampling == c.mode)
		}
	})
}

// save asks the relay for new modes. A refused change shows the relay's
// modes again; an accepted one shows when the relay sends the new modes.
func (m *AskModes) save(args wire.SetAskModesArgs) {
	m.saving, m.problem = true, ""
	send(wire.OpSetAskModes, args, func(r store.Reply) {
		m.later(func(ctx app.Context) {
			m.saving = false
			if r.Err != nil {
				m.problem = opFailure("Could not change the questions allowed: ", r.Err)
				m.showModes(ctx)
			}
		})
	})
}
