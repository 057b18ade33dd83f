package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// toggle opens the lists without typing, or closes them.
func (c *ChatAttachPicker) toggle(ctx app.Context, e app.Event) {
	if c.browsing != attachNone {
		c.browsing = attachNone
		return
	}
	k := attachPrompts
	if items, _ := attachItems(c.Servers, attachPrompts, ""); len(items) == 0 {
		k = attachResource
	}
	c.chosen, c.problem = nil, ""
	c.browse(k)
	c.afterRender(func(app.Context) { setDOMValue(attachSearchID, "") })
	c.query = ""
}

// browse shows the list of kind k with the search field.
func (c *ChatAttachPicker) browse(k attachKind) {
	c.browsing = k
	focusLater(c.ctx, attachSearchID)
}

// searched narrows the list to what the search field holds.
func (c *ChatAttachPicker) searched(ctx app.Context, e app.Event) {
	c.query = e.Get("target").Get("value").String()
}

// searchKey moves through the list from the search field.
func (c *ChatAttachPicker) searchKey(ctx app.Context, e app.Event) {
	key := e.Get("key").String()
	if attachKeys[key] {
		e.PreventDefault()
		c.listKeyDown(ctx, key)
	}
}

// attachKeys are the keys a list takes.
var attachKeys = map[string]bool{"ArrowDown": true, "ArrowUp": true, "Enter": true, "Escape": true}

// onKey takes the keys of the composer's list from the composer, before it
// sees them (Enter would send the message).
func (c *ChatAttachPicker) onKey(ev app.Value) {
	c.took.Store(false)
	if !c.shown.Load() || !attachKeys[ev.Get("key").String()] || ev.Get("isComposing").Bool() {
		return
	}
	for _, mod := range []string{"shiftKey", "altKey", "ctrlKey", "metaKey"} {
		if ev.Get(mod).Bool() {
			return
		}
	}
	target := ev.Get("target")
	if !composerLike(target) || parseTrigger(target.Get("value").String()).kind == attachNone {
		return
	}
	ev.Call("preventDefault")
	ev.Call("stopPropagation")
	key := ev.Get("key").String()
	c.took.Store(key == "Enter")
	c.later(func(ctx app.Context) {
		c.composer = target
		c.listKeyDown(ctx, key)
	})
}

// onKeyPress stops the keypress of an Enter that chose an item, which some
// browsers send even so, from writing a new line or sending the message.
func (c *ChatAttachPicker) onKeyPress(ev app.Value) {
	if c.took.Swap(false) && ev.Get("key").String() == "Enter" {
		ev.Call("preventDefault")
		ev.Call("stopPropagation")
	}
}

// composerLike reports whether el is a text field outside the picker.
func composerLike(el app.Value) bool {
	if el == nil || !el.Truthy() {
		return false
	}
	tag := el.Get("tagName").String()
	return (tag == "TEXTAREA" || tag == "INPUT") && !el.Call("closest", ".chat-attach").Truthy()
}

// listKeyDown moves the highlight, chooses the highlighted item or closes
// the list.
func (c *ChatAttachPicker) listKeyDown(ctx app.Context, key string) {
	kind, items, _, consumed := c.list()
	if key == "Escape" {
		c.finish(c.browsing != attachNone)
		return
	}
	n := len(items)
	if n == 0 {
		return
	}
	i := c.activeIndex(kind, n)
	switch key {
	case "ArrowDown":
		i = (i + 1) % n
	case "ArrowUp":
		i = (i - 1 + n) % n
	case "Enter":
		c.choose(ctx, items[i], consumed)
		return
	}
	c.active, c.activeFor = i, c.listKey(kind)
	c.afterRender(func(app.Context) {
		c.point()
		if el := app.Window().GetElementByID(attachOptionID(i)); el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "nearest"})
		}
	})
}

// point tells assistive technology which item of the composer's list is
// highlighted, through the composer's attributes.
func (c *ChatAttachPicker) point() {
	if c.composer == nil || !c.composer.Truthy() {
		return
	}
	if !c.shown.Load() {
		c.composer.Call("removeAttribute", "aria-controls")
		c.composer.Call("removeAttribute", "aria-activedescendant")
		return
	}
	kind, items, _, _ := c.list()
	c.composer.Call("setAttribute", "aria-controls", attachListID)
	c.composer.Call("setAttribute", "aria-activedescendant", attachOptionID(c.activeIndex(kind, len(items))))
}

// choose attaches an item at once, or asks its arguments or variables first.
func (c *ChatAttachPicker) choose(ctx app.Context, it attachItem, consumed string) {
	if a, ok := it.attachment(); ok {
		c.attach(ctx, a, consumed)
		return
	}
	c.chosen, c.consumed, c.problem, c.browsing = &it, consumed, "", attachNone
	c.afterRender(func(app.Context) {
		c.point()
		for i := 0; app.Window().GetElementByID(attachArgID(i)).Truthy(); i++ {
			setDOMValue(attachArgID(i), "")
		}
	})
	focusLater(c.ctx, attachArgID(0))
}

// argsKey closes the arguments' form on an Escape nothing inside it took.
func (c *ChatAttachPicker) argsKey(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Escape" && !e.Get("defaultPrevented").Bool() {
		e.PreventDefault()
		c.finish(false)
	}
}

// confirm attaches the chosen item with the values typed.
func (c *ChatAttachPicker) confirm(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if c.chosen == nil {
		return
	}
	it := *c.chosen
	if p := it.Prompt; p != nil {
		values := map[string]string{}
		for i, a := range p.Arguments {
			if v := domValue(attachArgID(i)); v != "" {
				values[a.Name] = v
			}
		}
		if missing := missingPromptArgs(*p, values); len(missing) > 0 {
			c.problem = "Fill in the required arguments: " + strings.Join(missing, ", ") + "."
			return
		}
		if len(values) == 0 {
			values = nil
		}
		c.attach(ctx, wire.ChatAttachment{Kind: wire.AttachPrompt, Server: it.Server, Name: p.Name, Arguments: values}, c.consumed)
		return
	}
	tpl, _, ids := templateVars(*it.Template)
	if tpl == nil {
		return // its form says it cannot be filled
	}
	uri, ok := expandTemplate(tpl, ids)
	if !ok {
		c.problem = templateProblem
		return
	}
	c.attach(ctx, wire.ChatAttachment{Kind: wire.AttachResource, Server: it.Server, URI: uri}, c.consumed)
}

// attach closes the picker and gives the attachment to the composer.
func (c *ChatAttachPicker) attach(ctx app.Context, a wire.ChatAttachment, consumed string) {
	c.finish(false)
	if c.OnAttach != nil {
		c.OnAttach(ctx, a, consumed)
	}
}

// finish closes what is open and gives the focus back: to the button when
// toButton, else to the composer when the picker took the focus from it.
func (c *ChatAttachPicker) finish(toButton bool) {
	took := c.chosen != nil || c.browsing != attachNone
	c.chosen, c.browsing, c.problem, c.closed = nil, attachNone, "", c.Input
	c.afterRender(func(app.Context) {
		c.point()
		if !took {
			return // the focus never left the composer
		}
		if !toButton && c.composer != nil && c.composer.Truthy() && c.composer.Get("isConnected").Bool() {
			c.composer.Call("focus")
			return
		}
		if el := app.Window().GetElementByID(attachButtonID); el.Truthy() {
			el.Call("focus")
		}
	})
}
