package web

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// chatInputID is the id of the composer's text box.
const chatInputID = "chat-input"

// ChatComposer is where the person writes: Enter sends, Shift+Enter starts
// a new line, Stop ends the running turn. Without a conversation, the first
// message creates one (or a compare group) from the draft.
type ChatComposer struct {
	app.Compo
	mounted

	Chat    string // the conversation written to (any of a compare group reaches all); "" for a new one
	Running bool   // a turn of it runs
	Models  []wire.ChatModel
	Servers []wire.Server // whose prompts and resources may be attached
	Draft   *chatDraft

	input    string                // the text typed, which drives the attach menus
	attached []wire.ChatAttachment // what the next message attaches

	sending  bool   // a message is on its way
	stopping bool   // a stop is on its way
	problem  string // why the last message or stop failed
}

// Render implements app.Composer.
func (c *ChatComposer) Render() app.UI {
	return app.Form().Class("chat-composer").Attr("novalidate", true).Aria("label", "Write a message").
		OnSubmit(func(ctx app.Context, e app.Event) { e.PreventDefault(); c.send(ctx) }).Body(
		app.Label().Class("sb-visually-hidden").For(chatInputID).Text("Message"),
		c.renderAttached(),
		&ChatAttachPicker{Input: c.input, Servers: c.Servers, OnAttach: c.attach},
		app.Textarea().ID(chatInputID).Class("chat-input").Rows(3).
			Placeholder("Message the model. Enter sends, Shift+Enter starts a new line; / attaches a prompt, @ a resource.").
			Aria("describedby", "chat-composer-error").
			OnKeyDown(c.key).OnKeyPress(keepEnter).OnInput(func(ctx app.Context, e app.Event) { c.input = domValue(chatInputID) }),
		app.Div().Class("chat-composer-actions").Body(
			app.If(c.Running, func() app.UI {
				return disabledIf(app.Button().Class("sb-button", "is-danger", "chat-stop").Type("button"), c.stopping).
					Text(choose(c.stopping, "Stopping…", "Stop")).OnClick(c.stop)
			}),
			disabledIf(app.Button().Class("sb-button", "is-primary", "chat-send").Type("submit"), c.sending || c.Running).
				Text(choose(c.sending, "Sending…", "Send")),
		),
		app.P().ID("chat-composer-error").Class("sb-error").Role("alert").Text(c.problem),
	)
}

// key sends on Enter, unless Shift is held or a character is being composed.
func (c *ChatComposer) key(ctx app.Context, e app.Event) {
	if !sendsOnEnter(e) {
		ctx.PreventUpdate()
		return
	}
	e.PreventDefault()
	c.send(ctx)
}

// keepEnter keeps the Enter that sent a message out of the text: a browser
// (or a test's driver) may insert it with the key press that follows the
// key down.
func keepEnter(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sendsOnEnter(e) {
		e.PreventDefault()
	}
}

// sendsOnEnter reports whether a key event is an Enter that sends.
func sendsOnEnter(e app.Event) bool {
	return e.Get("key").String() == "Enter" && !e.Get("shiftKey").Bool() && !e.Get("isComposing").Bool()
}

// send sends the message typed, creating the conversation first if there
// is none.
func (c *ChatComposer) send(ctx app.Context) {
	text := domValue(chatInputID)
	if c.sending || c.Running || strings.TrimSpace(text) == "" && len(c.attached) == 0 {
		return
	}
	c.problem = ""
	if c.Chat != "" {
		c.sendTo(c.Chat, text)
		return
	}
	args, missing := c.Draft.createArgs(c.Models)
	if missing != "" {
		c.problem = missing
		return
	}
	c.sending = true
	send(wire.OpCreateChat, args, func(r store.Reply) {
		c.later(func(ctx app.Context) {
			c.sending = false
			if r.Err != nil {
				c.problem = opFailure("Could not start the conversation: ", r.Err)
				return
			}
			var res wire.CreateChatResult
			if err := json.Unmarshal(r.Data, &res); err != nil || len(res.Chats) == 0 {
				c.problem = "The relay's answer could not be read."
				return
			}
			id := res.Chats[0].ID
			ctx.Navigate(chatURL(id))
			c.sendTo(id, text)
		})
	})
}

// sendTo sends text to conversation id and empties the box once it went.
func (c *ChatComposer) sendTo(id, text string) {
	c.sending = true
	attached := c.attached
	send(wire.OpSendChat, wire.SendChatArgs{Chat: id, Text: text, Attachments: attached}, func(r store.Reply) {
		c.later(func(ctx app.Context) {
			c.sending = false
			if r.Err != nil {
				c.problem = opFailure("Could not send the message: ", r.Err)
				return
			}
			if strings.TrimSpace(domValue(chatInputID)) == strings.TrimSpace(text) {
				setDOMValue(chatInputID, "")
				c.input = ""
			}
			c.attached = slices.DeleteFunc(c.attached, func(a wire.ChatAttachment) bool {
				return slices.ContainsFunc(attached, func(b wire.ChatAttachment) bool { return sameAttachment(a, b) })
			})
			focusLater(ctx, chatInputID)
		})
	})
}

// stop stops the running turn (every turn of a compare group).
func (c *ChatComposer) stop(ctx app.Context, e app.Event) {
	if c.stopping {
		return
	}
	c.stopping, c.problem = true, ""
	send(wire.OpStopChat, wire.ChatArgs{Chat: c.Chat}, func(r store.Reply) {
		c.later(func(app.Context) {
			c.stopping = false
			if r.Err != nil {
				c.problem = opFailure("Could not stop: ", r.Err)
			}
		})
	})
}

// attach adds a prompt or resource to the next message and removes the
// text that asked for it.
func (c *ChatComposer) attach(ctx app.Context, a wire.ChatAttachment, consumed string) {
	if !slices.ContainsFunc(c.attached, func(b wire.ChatAttachment) bool { return sameAttachment(a, b) }) && len(c.attached) < wire.MaxChatAttach {
		c.attached = append(c.attached, a)
	}
	text := domValue(chatInputID)
	if i := strings.LastIndex(text, consumed); consumed != "" && i >= 0 {
		text = text[:i] + text[i+len(consumed):]
	}
	setDOMValue(chatInputID, text)
	c.input = text
	focusLater(ctx, chatInputID)
}

// renderAttached shows what the next message attaches, each with Remove.
func (c *ChatComposer) renderAttached() app.UI {
	if len(c.attached) == 0 {
		return app.Text("")
	}
	return app.Ul().Class("chat-attached").Aria("label", "Attached to the next message").Body(
		app.Range(c.attached).Slice(func(i int) app.UI {
			a := c.attached[i]
			return app.Li().Class("chat-attach").Body(
				app.Span().Text(attachmentLabel(a)),
				app.Button().Class("sb-link", "chat-attach-remove").Type("button").Aria("label", "Remove "+attachmentLabel(a)).Text("×").
					OnClick(func(ctx app.Context, e app.Event) {
						c.attached = slices.DeleteFunc(slices.Clone(c.attached), func(b wire.ChatAttachment) bool { return sameAttachment(a, b) })
					}),
			)
		}),
	)
}

// sameAttachment says whether a and b attach the same thing.
func sameAttachment(a, b wire.ChatAttachment) bool {
	return a.Kind == b.Kind && a.Server == b.Server && a.Name == b.Name && a.URI == b.URI && maps.Equal(a.Arguments, b.Arguments)
}

// attachmentLabel names an attachment on its chip.
func attachmentLabel(a wire.ChatAttachment) string {
	if a.Kind == wire.AttachPrompt {
		return "/" + a.Name
	}
	return "@" + a.URI
}
