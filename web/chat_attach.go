package web

import (
	"strconv"
	"sync/atomic"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/yosida95/uritemplate/v3"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ChatAttachPicker attaches MCP prompts and resources to a chat message. It
// follows the composer's text: a "/" at its start lists the prompts of the
// ready servers, a last word starting with "@" their resources and resource
// templates; a button opens the same lists without typing. The arrows move
// through a list, Enter chooses and Escape closes it, also while the focus
// is in the composer. A prompt's arguments and a template's variables are
// asked, with the server's suggestions, before OnAttach gets the attachment
// and the text it replaces.
//
// What runs after a render runs in the picker's own context (mounted): an
// event's context skips it once the element that got the event is gone,
// as an item chosen or a form sent is.
type ChatAttachPicker struct {
	app.Compo
	mounted

	Input    string // the composer's text
	Servers  []wire.Server
	OnAttach func(ctx app.Context, a wire.ChatAttachment, consumed string)

	browsing  attachKind  // the list the button opened; attachNone while following the composer
	query     string      // what is typed in the button's search field
	closed    string      // the composer text whose list was closed; see stillClosed
	active    int         // the highlighted item
	activeFor string      // the list active belongs to; in another, the first item is highlighted
	chosen    *attachItem // the item whose arguments or variables are asked
	consumed  string      // the text chosen's attachment replaces
	problem   string
	composer  app.Value   // the composer, once it had the focus with a list shown
	shown     atomic.Bool // the composer's list is shown, for onKey, which runs off the UI goroutine
	took      atomic.Bool // onKey took the last Enter: its keypress is the list's too
	keydown   app.Func
	keypress  app.Func
}

// Element ids of the picker.
const (
	attachButtonID = "chat-attach-button"
	attachListID   = "chat-attach-list"
	attachSearchID = "chat-attach-search"
)

func attachOptionID(i int) string { return "chat-attach-option-" + strconv.Itoa(i) }
func attachArgID(i int) string    { return "chat-attach-arg-" + strconv.Itoa(i) }

// OnMount listens, before the composer does, for the keys that move
// through the composer's list.
func (c *ChatAttachPicker) OnMount(ctx app.Context) {
	c.mounted.OnMount(ctx)
	if !app.IsClient {
		return
	}
	c.keydown = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			c.onKey(args[0])
		}
		return nil
	})
	c.keypress = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			c.onKeyPress(args[0])
		}
		return nil
	})
	app.Window().Call("addEventListener", "keydown", c.keydown, true)
	app.Window().Call("addEventListener", "keypress", c.keypress, true)
}

// OnDismount stops listening.
func (c *ChatAttachPicker) OnDismount() {
	if c.keydown != nil {
		app.Window().Call("removeEventListener", "keydown", c.keydown, true)
		app.Window().Call("removeEventListener", "keypress", c.keypress, true)
		c.keydown.Release()
		c.keypress.Release()
		c.keydown, c.keypress = nil, nil
	}
	c.shown.Store(false)
	c.point()
}

// OnUpdate notes the composer, which has the focus while its text changes,
// and points it at the highlighted item.
func (c *ChatAttachPicker) OnUpdate(ctx app.Context) {
	c.afterRender(func(app.Context) {
		if active := app.Window().Get("document").Get("activeElement"); composerLike(active) && parseTrigger(c.Input).kind != attachNone {
			c.composer = active
		}
		c.point()
	})
}

// Render implements app.Composer.
func (c *ChatAttachPicker) Render() app.UI {
	kind, items, total, consumed := c.list()
	c.shown.Store(c.browsing == attachNone && len(items) > 0)
	active := c.activeIndex(kind, len(items))
	var pop app.UI
	switch {
	case c.chosen != nil:
		pop = c.renderArgs()
	case c.browsing != attachNone:
		pop = c.renderBrowse(items, total, active)
	case len(items) > 0:
		pop = app.Div().Class("chat-attach-pop").Body(c.renderList(kind, items, total, active, consumed))
	}
	return app.Div().Class("chat-attach").Body(
		app.Button().ID(attachButtonID).Class("chat-attach-button", "sb-button", "is-quiet").Type("button").
			Aria("expanded", strconv.FormatBool(c.browsing != attachNone)).
			Title("Attach a prompt or a resource; or type / or @ in your message").Text("Attach…").
			OnClick(c.toggle),
		// The live region stays in its place whatever opens after it.
		app.P().Class("chat-attach-status", "sb-visually-hidden").Role("status").Text(listStatus(kind, len(items), c.query, c.browsing != attachNone)),
		pop,
	)
}

// list is the list shown: its kind, its items, how many matched and the
// composer text an item replaces.
func (c *ChatAttachPicker) list() (kind attachKind, items []attachItem, total int, consumed string) {
	switch {
	case c.chosen != nil:
		return attachNone, nil, 0, ""
	case c.browsing != attachNone:
		items, total = attachItems(c.Servers, c.browsing, c.query)
		return c.browsing, items, total, ""
	}
	t := parseTrigger(c.Input)
	if t.kind == attachNone || stillClosed(c.closed, c.Input) {
		return attachNone, nil, 0, ""
	}
	items, total = attachItems(c.Servers, t.kind, t.query)
	return t.kind, items, total, t.text
}

// listKey names the list shown, so that the highlight starts again at the
// top of another.
func (c *ChatAttachPicker) listKey(kind attachKind) string {
	if c.browsing != attachNone {
		return "browse" + string(kind) + c.query
	}
	return c.Input
}

// activeIndex is the highlighted item of a list of n of kind.
func (c *ChatAttachPicker) activeIndex(kind attachKind, n int) int {
	if c.activeFor != c.listKey(kind) || c.active >= n {
		return 0
	}
	return c.active
}

// renderBrowse is what the button opens: the choice of list, a search
// field and the list.
func (c *ChatAttachPicker) renderBrowse(items []attachItem, total, active int) app.UI {
	n := len(items)
	what := choose(c.browsing == attachPrompts, "prompts", "resources")
	search := app.Input().ID(attachSearchID).Class("chat-attach-search").Type("search").AutoComplete(false).
		Role("combobox").Aria("autocomplete", "list").Aria("controls", attachListID).
		Aria("expanded", strconv.FormatBool(n > 0)).Placeholder("Search " + what).
		OnInput(c.searched).OnKeyDown(c.searchKey)
	if n > 0 {
		search = search.Aria("activedescendant", attachOptionID(active))
	}
	kind := func(k attachKind, label string) app.UI {
		return app.Button().Class("chat-attach-kind", "sb-button", "is-quiet").Type("button").
			Aria("pressed", strconv.FormatBool(c.browsing == k)).Text(label).
			OnClick(func(ctx app.Context, e app.Event) { c.browse(k) }, app.EventScope(label))
	}
	return app.Div().Class("chat-attach-browse", "chat-attach-pop").Body(
		app.Div().Class("chat-attach-kinds").Role("group").Aria("label", "What to attach").Body(
			kind(attachPrompts, "Prompts"), kind(attachResource, "Resources"),
		),
		app.Label().For(attachSearchID).Class("sb-visually-hidden").Text("Search "+what),
		search,
		app.If(n > 0, func() app.UI { return c.renderList(c.browsing, items, total, active, "") }).
			Else(func() app.UI {
				return app.P().Class("chat-attach-empty").Text(listStatus(c.browsing, 0, c.query, true))
			}),
		app.P().Class("chat-attach-tip").Text("Tip: type / at the start of a message for a prompt, @ for a resource."),
	)
}

// renderList is a listbox of items; choosing one replaces consumed.
func (c *ChatAttachPicker) renderList(kind attachKind, items []attachItem, total, active int, consumed string) app.UI {
	list, item, label := "chat-slash", "chat-slash-item", "Prompts"
	if kind == attachResource {
		list, item, label = "chat-at", "chat-at-item", "Resources"
	}
	return app.Div().Class("chat-attach-menu").Body(
		app.Ul().ID(attachListID).Class(list).Role("listbox").Aria("label", label).Body(
			app.Range(items).Slice(func(i int) app.UI {
				it := items[i]
				li := app.Li().ID(attachOptionID(i)).Class(item).Role("option").
					Aria("selected", strconv.FormatBool(i == active)).DataSet("kind", it.kind()).DataSet("server", it.Server).
					OnMouseDown(func(ctx app.Context, e app.Event) { e.PreventDefault() }). // the focus stays where it is
					OnClick(func(ctx app.Context, e app.Event) { c.choose(ctx, it, consumed) }, app.EventScope(it.key()+"\n"+consumed)).
					Body(
						app.Span().Class("chat-attach-title").Text(it.title()),
						app.Span().Class("chat-attach-detail").Text(it.detail()),
						app.Span().Class("chat-attach-server").Text(it.ServerName),
						app.Span().Class("chat-attach-description").Text(it.description()),
					)
				if i == active {
					li = li.Class("is-active")
				}
				return li
			}),
		),
		app.If(total > len(items), func() app.UI {
			return app.P().Class("chat-attach-more").Text(strconv.Itoa(total-len(items)) + " more: type to narrow the list.")
		}),
	)
}

// renderArgs asks the chosen prompt's arguments or template's variables.
func (c *ChatAttachPicker) renderArgs() app.UI {
	it := *c.chosen
	what := choose(it.Prompt != nil, "Prompt ", "Resource ")
	return app.Form().ID("chat-attach-args").Class("chat-attach-args", "chat-attach-pop").Attr("novalidate", true).
		Aria("labelledby", "chat-attach-args-title").OnSubmit(c.confirm).OnKeyDown(c.argsKey).Body(
		app.P().ID("chat-attach-args-title").Class("chat-attach-args-title").Body(
			app.Text(what+it.title()+" "),
			app.Span().Class("chat-attach-server").Text(it.ServerName),
		),
		app.Div().Class("chat-attach-fields").Body(c.fields(it)...),
		app.P().ID("chat-attach-error").Class("sb-error").Role("alert").Text(c.problem),
		app.Div().Class("item-actions").Body(
			app.Button().Class("chat-attach-confirm", "sb-button", "is-primary").Type("submit").Text("Attach"),
			app.Button().Class("chat-attach-cancel", "sb-button").Type("button").Text("Cancel").
				OnClick(func(ctx app.Context, e app.Event) { c.finish(false) }),
		),
	)
}

// fields are the inputs of the chosen item, as the prompt form and the
// template form have them.
func (c *ChatAttachPicker) fields(it attachItem) []app.UI {
	var out []app.UI
	if p := it.Prompt; p != nil {
		ref := wire.CompleteRef{Type: wire.RefPrompt, Name: p.Name}
		ids := map[string]string{}
		for i, a := range p.Arguments {
			ids[a.Name] = attachArgID(i)
		}
		for i, a := range p.Arguments {
			id := attachArgID(i)
			out = append(out, app.Div().Class("sb-field").Body(
				app.Label().For(id).Text(titleOr(a.Title, a.Name)+choose(a.Required, " (required)", "")),
				&CompletionInput{ID: id, Class: "chat-attach-arg", ArgName: a.Name, Help: id + "-help", Server: it.Server,
					Ref: ref, Argument: a.Name, Others: ids, Enabled: it.Complete},
				app.Small().ID(id+"-help").Class("field-help").Text(a.Description),
			))
		}
		return out
	}
	tpl, names, ids := templateVars(*it.Template)
	if tpl == nil {
		return []app.UI{app.P().Class("sb-error").Text("This template is malformed, so it cannot be filled in.")}
	}
	ref := wire.CompleteRef{Type: wire.RefResource, URI: it.Template.URITemplate}
	for _, name := range names {
		out = append(out, app.Div().Class("sb-field").Body(
			app.Label().For(ids[name]).Text(name),
			&CompletionInput{ID: ids[name], Class: "chat-attach-arg", ArgName: name, Server: it.Server,
				Ref: ref, Argument: name, Others: ids, Enabled: it.Complete},
		))
	}
	return out
}

// templateVars parses a template and names its variables and their
// inputs' ids; tpl is nil when the template is malformed.
func templateVars(t wire.ResourceTemplate) (tpl *uritemplate.Template, names []string, ids map[string]string) {
	tpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return nil, nil, nil
	}
	names, ids = tpl.Varnames(), map[string]string{}
	for i, name := range names {
		ids[name] = attachArgID(i)
	}
	return tpl, names, ids
}
