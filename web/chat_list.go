package web

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// searchDelay is how long the search box waits for typing to pause before
// it asks the relay.
const searchDelay = 300 * time.Millisecond

// chatTitleInputID is the id of the box a conversation is renamed in.
const chatTitleInputID = "chat-title-input"

// ChatList is the person's conversations, latest first: New, a search over
// titles and messages, and each conversation's link, Rename and Delete.
type ChatList struct {
	app.Compo
	mounted

	Chats []wire.Chat // as the state holds them; the list orders them
	Shown []string    // the conversations shown beside the list

	filter     chatFilter
	searchSeq  int    // the last search typed; older answers are dropped
	searching  bool   // a search is on its way
	searchErr  string // why the last search failed
	renaming   string // the conversation whose title is being edited
	confirming string // the conversation whose deletion waits for a yes
	busy       string // the conversation whose rename or deletion is on its way
	problem    string // why it failed
}

// Render implements app.Composer.
func (l *ChatList) Render() app.UI {
	chats := l.filter.apply(orderChats(l.Chats))
	empty := ""
	switch {
	case len(l.Chats) == 0:
		empty = "No conversations yet."
	case len(chats) == 0:
		empty = "No conversation matches."
	}
	return app.Aside().Class("chat-side").Aria("labelledby", "chat-list-title").Body(
		app.Div().Class("chat-side-head").Body(
			app.H2().ID("chat-list-title").Class("sb-section-title").Text("Conversations"),
			app.Button().Class("sb-button", "chat-new").Type("button").Text("New").
				Aria("label", "New conversation").OnClick(func(ctx app.Context, e app.Event) {
				ctx.Navigate(ChatPath)
				focusLater(ctx, chatInputID)
			}),
		),
		app.Label().Class("sb-visually-hidden").For("chat-search").Text("Search conversations"),
		app.Input().ID("chat-search").Class("chat-search").Type("search").Placeholder("Search titles and messages").
			OnInput(l.typed),
		app.P().Class("sb-note", "chat-search-state").Role("status").Text(choose(l.searching, "Searching…", "")),
		app.P().Class("sb-error").Role("alert").Text(l.searchErr),
		app.Ul().Class("chat-list").Body(
			app.Range(chats).Slice(func(i int) app.UI { return l.renderItem(chats[i]) }),
		),
		app.P().Class("sb-empty").Text(empty),
		app.P().Class("sb-error").Role("alert").Text(l.problem),
	)
}

// renderItem is one conversation of the list.
func (l *ChatList) renderItem(c wire.Chat) app.UI {
	id, title := c.ID, orDefault(c.Title, "New conversation")
	shown := slices.Contains(l.Shown, id)
	li := app.Li().Class("chat-item", choose(shown, "is-selected", ""), choose(c.Running, "is-running", "")).DataSet("chat", id)
	if l.renaming == id {
		return li.Body(
			app.Form().Class("chat-rename-form").Attr("novalidate", true).
				OnSubmit(func(ctx app.Context, e app.Event) { e.PreventDefault(); l.rename(id) }, app.EventScope(id)).Body(
				app.Label().Class("sb-visually-hidden").For(chatTitleInputID).Text("Title of the conversation"),
				app.Input().ID(chatTitleInputID).Class("chat-title-input").Type("text").Value(c.Title).
					MaxLength(wire.MaxChatTitle).OnKeyDown(func(ctx app.Context, e app.Event) {
					if e.Get("key").String() == "Escape" {
						l.stopRenaming()
					}
				}),
				disabledIf(app.Button().Class("sb-button", "is-primary", "chat-rename-save").Type("submit"), l.busy == id).
					Text(choose(l.busy == id, "Saving…", "Save")),
				app.Button().Class("sb-button", "chat-rename-cancel").Type("button").Text("Cancel").
					OnClick(func(ctx app.Context, e app.Event) { l.stopRenaming() }),
			),
		)
	}
	link := app.A().Class("chat-open").Href(chatURL(id)).Body(
		app.Span().Class("chat-item-title").Text(title),
		app.Span().Class("chat-item-meta").Text(chatMeta(c)),
	)
	if shown {
		link = link.Aria("current", "page")
	}
	return li.Body(
		link,
		app.If(l.confirming == id, func() app.UI {
			return app.Div().Class("sb-confirm").Role("group").Aria("label", "Confirm deletion").Body(
				app.Span().Text("Delete this conversation?"),
				disabledIf(app.Button().Class("sb-button", "is-danger", "chat-delete-confirm").Type("button"), l.busy == id).
					Text(choose(l.busy == id, "Deleting…", "Delete")).
					OnClick(func(ctx app.Context, e app.Event) { l.remove(id) }, app.EventScope(id)),
				app.Button().Class("sb-button", "is-quiet", "chat-delete-cancel").Type("button").Text("Keep it").
					OnClick(func(ctx app.Context, e app.Event) {
						l.confirming = ""
						focusInChatItem(l.ctx, id, ".chat-delete")
					}, app.EventScope(id)),
			)
		}).Else(func() app.UI {
			return app.Div().Class("chat-item-actions").Body(
				app.Button().Class("sb-button", "is-quiet", "chat-rename").Type("button").Text("Rename").
					Aria("label", "Rename "+title).
					OnClick(func(ctx app.Context, e app.Event) {
						l.renaming, l.confirming, l.problem = id, "", ""
						focusLater(l.ctx, chatTitleInputID) // the button's own context ends with the button
					}, app.EventScope(id)),
				app.Button().Class("sb-button", "is-quiet", "chat-delete").Type("button").Text("Delete").
					Aria("label", "Delete "+title).
					OnClick(func(ctx app.Context, e app.Event) {
						l.confirming, l.problem = id, ""
						focusInChatItem(l.ctx, id, ".chat-delete-cancel")
					}, app.EventScope(id)),
			)
		}),
	)
}

// chatMeta is the small print of a conversation in the list.
func chatMeta(c wire.Chat) string {
	s := c.Model
	if c.Group != "" {
		s += " · compared"
	}
	if c.Running {
		s += " · running"
	}
	return s
}

// typed narrows the list as the person types, and asks the relay once
// typing pauses.
func (l *ChatList) typed(ctx app.Context, e app.Event) {
	l.filter.Query = ctx.JSSrc().Get("value").String()
	l.searchSeq++
	seq, q := l.searchSeq, strings.TrimSpace(l.filter.Query)
	l.searching, l.searchErr = false, ""
	if q == "" {
		return
	}
	ctx.After(searchDelay, func(app.Context) {
		if seq == l.searchSeq {
			l.search(q, seq)
		}
	})
}

// search asks the relay which conversations hold q.
func (l *ChatList) search(q string, seq int) {
	l.searching = true
	send(wire.OpSearchChats, wire.SearchChatsArgs{Query: q}, func(r store.Reply) {
		l.later(func(app.Context) {
			if seq != l.searchSeq {
				return
			}
			l.searching = false
			var res wire.SearchChatsResult
			switch {
			case r.Err != nil:
				l.searchErr = opFailure("Could not search the messages: ", r.Err)
			case json.Unmarshal(r.Data, &res) != nil:
				l.searchErr = "The relay's answer could not be read."
			default:
				l.filter.Found, l.filter.FoundFor = res.Chats, q
			}
		})
	})
}

// rename saves the title typed.
func (l *ChatList) rename(id string) {
	title := strings.TrimSpace(domValue(chatTitleInputID))
	if title == "" {
		l.problem = "A title cannot be empty."
		return
	}
	l.do(id, wire.OpUpdateChat, wire.UpdateChatArgs{Chat: id, Title: &title}, "Could not rename the conversation: ",
		func(app.Context) { l.stopRenaming() })
}

// stopRenaming closes the title box, giving the focus back to Rename.
func (l *ChatList) stopRenaming() {
	if id := l.renaming; id != "" {
		l.renaming = ""
		focusInChatItem(l.ctx, id, ".chat-rename")
	}
}

// focusInChatItem moves the focus, after the render, to what matches
// selector in the list's item of conversation id.
func focusInChatItem(ctx app.Context, id, selector string) {
	ctx.Defer(func(app.Context) {
		items := app.Window().Get("document").Call("querySelectorAll", ".chat-item")
		for i := 0; i < items.Length(); i++ {
			if item := items.Index(i); item.Get("dataset").Get("chat").String() == id {
				if el := item.Call("querySelector", selector); el.Truthy() {
					el.Call("focus")
				}
				return
			}
		}
	})
}

// remove deletes the conversation, leaving it when it was shown.
func (l *ChatList) remove(id string) {
	l.do(id, wire.OpDeleteChat, wire.ChatArgs{Chat: id}, "Could not delete the conversation: ", func(ctx app.Context) {
		l.confirming = ""
		if slices.Contains(l.Shown, id) {
			ctx.Navigate(ChatPath)
		}
	})
}

// do sends an op on conversation id, one at a time, and runs done once it
// succeeded.
func (l *ChatList) do(id string, op wire.OpName, args any, failed string, done func(app.Context)) {
	if l.busy != "" {
		return
	}
	l.busy, l.problem = id, ""
	send(op, args, func(r store.Reply) {
		l.later(func(ctx app.Context) {
			l.busy = ""
			if r.Err != nil {
				l.problem = opFailure(failed, r.Err)
				return
			}
			done(ctx)
		})
	})
}
