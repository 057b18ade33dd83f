package web

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// PromptGetForm asks for a prompt's arguments and gets its messages.
type PromptGetForm struct {
	app.Compo

	ServerID    string
	Prompt      wire.Prompt
	CanComplete bool // the server suggests argument values

	problem string // what the form lacks
}

// CompoID gives each prompt its own form, so nothing typed for one shows in another.
func (f *PromptGetForm) CompoID() string { return f.ServerID + "\n" + f.Prompt.Name }

// Render implements app.Composer.
func (f *PromptGetForm) Render() app.UI {
	p := f.Prompt
	return app.Form().ID("prompt-panel").Class("panel", "prompt-panel").DataSet("prompt-name", p.Name).
		Attr("novalidate", true).Aria("labelledby", "prompt-panel-title").
		OnSubmit(f.get).
		Body(
			app.H3().ID("prompt-panel-title").Class("panel-title").Text(titleOr(p.Title, p.Name)),
			app.P().Class("panel-description").Text(p.Description),
			app.Range(p.Arguments).Slice(func(i int) app.UI { return f.renderArg(i, p.Arguments[i]) }),
			app.P().ID("prompt-error").Class("sb-error").Role("alert").Text(f.problem),
			app.Div().Class("panel-actions").Body(
				app.Button().ID("prompt-get").Class("prompt-get", "sb-button", "is-primary").Type("submit").
					Text("Get prompt"),
			),
		)
}

// renderArg is one labelled input of the form.
func (f *PromptGetForm) renderArg(i int, a wire.PromptArgument) app.UI {
	id := promptArgID(i)
	label := titleOr(a.Title, a.Name)
	if a.Required {
		label += " (required)"
	}
	return app.Div().Class("sb-field").Body(
		app.Label().For(id).Text(label),
		&CompletionInput{
			ID: id, Class: "prompt-arg", ArgName: a.Name, Help: id + "-help",
			Server: f.ServerID, Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: f.Prompt.Name},
			Argument: a.Name, Others: f.argIDs(), Enabled: f.CanComplete,
		},
		app.Small().ID(id+"-help").Class("field-help").Text(a.Description),
	)
}

// get checks the required arguments and sends prompt.get.
func (f *PromptGetForm) get(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p := f.Prompt
	values := map[string]string{}
	for i, a := range p.Arguments {
		if v := domValue(promptArgID(i)); v != "" {
			values[a.Name] = v
		}
	}
	if missing := missingPromptArgs(p, values); len(missing) > 0 {
		f.problem = "Fill in the required arguments: " + strings.Join(missing, ", ") + "."
		return
	}
	f.problem = ""
	if c := relay(); c != nil {
		c.GetPrompt(f.ServerID, p.Name, values)
	}
}

// argIDs maps each argument's name to its input's id.
func (f *PromptGetForm) argIDs() map[string]string {
	ids := make(map[string]string, len(f.Prompt.Arguments))
	for i, a := range f.Prompt.Arguments {
		ids[a.Name] = promptArgID(i)
	}
	return ids
}

func promptArgID(i int) string { return "prompt-arg-" + strconv.Itoa(i) }
