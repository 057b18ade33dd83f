package web

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// completionDelay is how long typing must pause before suggestions are asked for.
const completionDelay = 250 * time.Millisecond

// CompletionInput is a text input that suggests values from the server's
// completion/complete as a person types: asked for after a pause, the
// stale request cancelled, the other fields already filled sent as context.
// The suggestions are a listbox the arrow keys move through, Enter picks
// from and Escape closes (an ARIA combobox). Without Enabled it is a plain
// input. The typed text lives in the DOM only; nothing here resets it.
type CompletionInput struct {
	app.Compo
	mounted

	ID       string // the input's id; the parent's label points at it
	Class    string // the input's class
	ArgName  string // its data-arg-name
	Help     string // the id of the text that describes it, if any
	Server   string
	Ref      wire.CompleteRef
	Argument string
	// Others maps the names of the other arguments or variables to their
	// inputs' ids, whose values go as context.
	Others  map[string]string
	Enabled bool // the server declared completions

	gen     int    // bumped by every keystroke; an answer to an older one is dropped
	pending string // the id of the completion op in flight
	values  []string
	total   int
	hasMore bool
	open    bool
	active  int // the highlighted suggestion, -1 for none
	problem string
	picked  bool // the last keydown was an Enter that picked a suggestion
}

// Render implements app.Composer.
func (f *CompletionInput) Render() app.UI {
	listID := f.ID + "-suggestions"
	input := app.Input().ID(f.ID).Class(f.Class).Type("text").DataSet("arg-name", f.ArgName).AutoComplete(false)
	if f.Help != "" {
		input = input.Aria("describedby", f.Help)
	}
	if !f.Enabled {
		return input
	}
	shown := f.open && len(f.values) > 0
	input = input.Role("combobox").Aria("autocomplete", "list").Aria("controls", listID).
		Aria("expanded", strconv.FormatBool(shown)).
		OnInput(f.typed).OnKeyDown(f.key).OnKeyPress(f.keyPress).OnBlur(f.blurred)
	if shown && f.active >= 0 {
		input = input.Aria("activedescendant", f.optionID(f.active))
	}
	values := f.values
	return app.Div().Class("completion").Body(
		input,
		hiddenIf(app.Ul().ID(listID).Class("completion-list").Role("listbox").Aria("label", "Suggestions"), !shown).Body(
			app.Range(values).Slice(func(i int) app.UI {
				v := values[i]
				li := app.Li().ID(f.optionID(i)).Class("completion-option").Role("option").
					Aria("selected", strconv.FormatBool(i == f.active)).
					OnMouseDown(func(ctx app.Context, e app.Event) {
						e.PreventDefault() // keep the focus in the input
						f.pick(ctx, v)
					}, app.EventScope(strconv.Itoa(i)+v)).Text(v)
				if i == f.active {
					li = li.Class("is-active")
				}
				return li
			}),
		),
		app.Small().Class("completion-status").Aria("live", "polite").Text(f.status()),
	)
}

func (f *CompletionInput) optionID(i int) string { return f.ID + "-option-" + strconv.Itoa(i) }

// status says how many suggestions there are, or why there are none.
func (f *CompletionInput) status() string {
	switch {
	case f.problem != "":
		return f.problem
	case !f.open || len(f.values) == 0:
		return ""
	case f.total > len(f.values):
		return strconv.Itoa(len(f.values)) + " of " + strconv.Itoa(f.total) + " suggestions"
	case f.hasMore:
		return countWords(len(f.values), "suggestion") + ", more exist: type to narrow"
	default:
		return countWords(len(f.values), "suggestion")
	}
}

// typed asks for suggestions once typing pauses.
func (f *CompletionInput) typed(ctx app.Context, e app.Event) {
	f.gen++
	gen := f.gen
	ctx.After(completionDelay, func(ctx app.Context) {
		if gen == f.gen {
			f.ask(ctx)
		}
	})
}

// ask cancels the request in flight and asks for the value typed now.
func (f *CompletionInput) ask(ctx app.Context) {
	c := relay()
	if c == nil {
		return
	}
	if f.pending != "" {
		c.CancelOp(f.pending)
	}
	context := map[string]string{}
	for name, id := range f.Others {
		if v := domValue(id); v != "" && name != f.Argument && len(context) < wire.MaxCompletionContext {
			context[name] = v
		}
	}
	gen := f.gen
	var id string
	id = c.Complete(wire.CompleteArgs{
		Server: f.Server, Ref: f.Ref, Argument: f.Argument, Value: domValue(f.ID), Context: context,
	}, func(res *wire.CompleteResult, e *wire.Error) {
		f.later(func(ctx app.Context) {
			if f.pending == id {
				f.pending = ""
			}
			if gen != f.gen || (e != nil && e.Code == wire.CodeCancelled) {
				return // an answer to something typed before
			}
			if e != nil {
				f.values, f.open, f.problem = nil, false, opFailure("No suggestions: ", e)
				return
			}
			f.values, f.total, f.hasMore = res.Values, res.Total, res.HasMore
			// A list for a field the person already left would lie over the next one.
			f.open, f.active, f.problem = hasFocus(f.ID), -1, ""
		})
	})
	f.pending = id
}

// key moves through the suggestions, picks one or closes them.
func (f *CompletionInput) key(ctx app.Context, e app.Event) {
	n := len(f.values)
	f.picked = false
	switch e.Get("key").String() {
	case "ArrowDown":
		e.PreventDefault()
		if !f.open || n == 0 {
			f.gen++
			f.ask(ctx)
			return
		}
		f.active = (f.active + 1) % n
	case "ArrowUp":
		e.PreventDefault()
		if f.open && n > 0 {
			f.active = (f.active - 1 + n) % n
		}
	case "Enter":
		if f.open && f.active >= 0 && f.active < n {
			e.PreventDefault() // a pick, not the form's submit
			f.pick(ctx, f.values[f.active])
			f.picked = true
		}
	case "Escape":
		if f.open && n > 0 {
			e.PreventDefault()
			f.close()
		}
	case "Tab":
		f.close()
	}
}

// keyPress stops the Enter that picked a suggestion from submitting the
// form where a browser sends its keypress even so.
func (f *CompletionInput) keyPress(ctx app.Context, e app.Event) {
	if f.picked && e.Get("key").String() == "Enter" {
		e.PreventDefault()
	}
	f.picked = false
}

// pick puts v in the input and closes the suggestions.
func (f *CompletionInput) pick(ctx app.Context, v string) {
	setDOMValue(f.ID, v)
	f.gen++ // an answer still coming is for the text before the pick
	f.close()
}

func (f *CompletionInput) blurred(ctx app.Context, e app.Event) { f.close() }

func (f *CompletionInput) close() {
	f.open, f.active = false, -1
}
