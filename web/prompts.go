package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// PromptsTab lists a server's prompts; selecting one opens a form for its
// arguments that gets the prompt's messages.
type PromptsTab struct {
	app.Compo

	ServerID string
	Prompts  []wire.Prompt
	Calls    []store.Call // prompt gets from this server, newest first
	Ready    bool
	// CanComplete says the server suggests argument values.
	CanComplete bool

	selected string // name of the prompt whose form is open
	marks    newMarks
}

// CompoID makes another server's prompts a new list.
func (t *PromptsTab) CompoID() string { return t.ServerID }

// OnInit takes the prompts shown first as known.
func (t *PromptsTab) OnInit() { t.marks.seed(promptNames(t.Prompts)) }

// OnUpdate marks the prompts that arrived since the last render.
func (t *PromptsTab) OnUpdate(ctx app.Context) { t.marks.update(ctx, promptNames(t.Prompts)) }

// Render implements app.Composer.
func (t *PromptsTab) Render() app.UI {
	return app.Div().Class("prompts-tab", "split").Body(
		app.Div().Class("split-list").Body(
			app.Ul().Class("prompt-list", "item-list").Body(
				app.Range(t.Prompts).Slice(func(i int) app.UI { return t.renderPrompt(t.Prompts[i]) }),
			),
			app.P().Class("sb-empty").Text(emptyListText(len(t.Prompts), t.Ready, "prompts")),
		),
		app.Div().Class("split-side").Body(
			t.renderForm(),
			renderCalls("Prompt results", t.Calls),
		),
	)
}

func (t *PromptsTab) renderPrompt(p wire.Prompt) app.UI {
	name := p.Name
	selected := name == t.selected
	classes := []string{"prompt-item", "item", t.marks.class(name)}
	if selected {
		classes = append(classes, "is-selected")
	}
	return app.Li().Class(classes...).DataSet("prompt-name", name).Body(
		app.Button().Class("item-open", "prompt-open").Type("button").
			Aria("expanded", choose(selected, "true", "false")).Aria("controls", "prompt-panel").
			OnClick(func(ctx app.Context, e app.Event) {
				t.selected = name
				focusLater(ctx, "prompt-arg-0", "prompt-get")
			}, app.EventScope(name)).
			Body(
				app.Span().Class("prompt-title", "item-title").Text(titleOr(p.Title, name)),
				app.If(p.Title != "" && p.Title != name, func() app.UI {
					return app.Span().Class("item-key").Text(name)
				}),
				app.Span().Class("prompt-description", "item-description").Text(p.Description),
				app.If(len(p.Arguments) > 0, func() app.UI {
					return app.Span().Class("prompt-arg-names", "item-meta").Text("Arguments: " + argNames(p.Arguments))
				}),
			),
	)
}

// renderForm is the selected prompt's argument form, or a hint.
func (t *PromptsTab) renderForm() app.UI {
	for _, p := range t.Prompts {
		if p.Name == t.selected {
			return &PromptGetForm{ServerID: t.ServerID, Prompt: p, CanComplete: t.CanComplete}
		}
	}
	text := "Select a prompt to fill in its arguments and see its messages."
	if t.selected != "" {
		text = "The server no longer offers the prompt “" + t.selected + "”."
	}
	return app.Div().ID("prompt-panel").Class("panel", "is-hint").Body(app.P().Class("sb-empty").Text(text))
}

func promptNames(prompts []wire.Prompt) []string {
	out := make([]string, len(prompts))
	for i, p := range prompts {
		out[i] = p.Name
	}
	return out
}

// argNames lists argument names, required ones marked with an asterisk.
func argNames(args []wire.PromptArgument) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Name
		if a.Required {
			names[i] += "*"
		}
	}
	return strings.Join(names, ", ")
}
