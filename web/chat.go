package web

import (
	"encoding/json"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatPath is the page of the person's own chat; its query's chatParam
// names the conversation shown.
const (
	ChatPath  = "/chat"
	chatParam = "c"
)

// chatURL is the address of the page showing conversation id ("" for a new one).
func chatURL(id string) string {
	if id == "" {
		return ChatPath
	}
	return ChatPath + "?" + chatParam + "=" + url.QueryEscape(id)
}

// actionChatGrew tells the page that a conversation shows more than it did
// (its stored turns came), outside of a change of the state.
const actionChatGrew = "switchboard.chat-grew"

// ChatPage is the person's chat with a model that uses their servers'
// tools: the conversations on the left, the conversation (or a compare
// group's, side by side) in the middle with its model and tools above it
// and the composer below. The relay runs the turns; the page shows the
// state's and sends ops.
type ChatPage struct {
	app.Compo
	mounted

	live     bool // the models were asked for on this live connection
	loaded   bool // the models were listed
	models   []wire.ChatModel
	help     string // how to configure a model, when none is
	problem  string // why the models could not be listed
	selected string // the conversation the address names
	draft    chatDraft
	follow   chatFollow
}

// OnNav shows the conversation the address names.
func (p *ChatPage) OnNav(ctx app.Context) {
	p.selected = ctx.Page().URL().Query().Get(chatParam)
	p.follow.toEnd(ctx)
}

// OnMount connects the page, lists the models once the relay is live, and
// follows the end of the conversation as it grows.
func (p *ChatPage) OnMount(ctx app.Context) {
	p.mounted.OnMount(ctx)
	p.selected = ctx.Page().URL().Query().Get(chatParam)
	p.follow.start()
	ctx.Handle(actionChatGrew, func(ctx app.Context, _ app.Action) { p.follow.keep(ctx) })
	connectPage(ctx, func(ctx app.Context) {
		live := currentView().Status == store.StatusLive
		if live && !p.live {
			p.loadModels()
		}
		p.live = live
		p.follow.keep(ctx)
	})
}

// OnDismount stops following the page's scrolling.
func (p *ChatPage) OnDismount() { p.follow.stop() }

// loadModels lists the configured models.
func (p *ChatPage) loadModels() {
	p.problem = ""
	send(wire.OpChatModels, struct{}{}, func(r store.Reply) {
		p.later(func(app.Context) {
			var res wire.ChatModelsResult
			switch {
			case r.Err != nil:
				p.problem = opFailure("Could not list the models: ", r.Err)
			case json.Unmarshal(r.Data, &res) != nil:
				p.problem = "The relay's answer could not be read."
			default:
				p.loaded, p.models, p.help = true, res.Models, res.Help
			}
		})
	})
}

// Render implements app.Composer.
func (p *ChatPage) Render() app.UI {
	v := currentView()
	group := chatGroup(v.Snapshot.Chats, p.selected)
	inline, stack := splitAsks(v.Snapshot.Asks, chatIDs(group))
	root := pageRoot(app.Div().ID("switchboard").Class("sb-app"), v)
	return root.Body(
		renderHeader(v),
		renderNav(ChatPath),
		renderBanners(v.Status, false),
		&AskStack{Asks: stack, Status: v.AskStatus, Departed: v.Departed, Live: v.Status == store.StatusLive},
		app.Main().ID("chat").Class("chat-page").Body(p.renderBody(v, group, inline)),
	)
}

// renderBody is the chat, or why it cannot be used yet.
func (p *ChatPage) renderBody(v store.View, group []wire.Chat, inline map[string][]wire.Ask) app.UI {
	switch {
	case p.problem != "":
		return app.Div().Class("sb-error").Role("alert").Body(
			app.Text(p.problem+" "),
			app.Button().Class("sb-button", "chat-models-retry").Type("button").Text("Try again").
				OnClick(func(ctx app.Context, e app.Event) { p.loadModels() }),
		)
	case !p.loaded:
		return app.P().Class("sb-empty").Text("Loading the models…")
	case len(p.models) == 0:
		return app.P().Class("chat-help").Text(orDefault(p.help, "No model is configured for the chat."))
	}
	first := ""
	if len(group) > 0 {
		first = group[0].ID
	}
	return app.Div().Class("chat-layout").Body(
		&ChatList{Chats: v.Snapshot.Chats, Shown: chatIDs(group)},
		app.Section().Class("chat-main").Aria("labelledby", "chat-title").Body(
			&ChatSetup{Models: p.models, Servers: v.Snapshot.Servers, Group: group, Draft: &p.draft},
			p.renderConvs(v, group, inline),
			&ChatComposer{Chat: first, Running: anyRunning(group), Models: p.models, Servers: v.Snapshot.Servers, Draft: &p.draft},
		),
	)
}

// renderConvs is the conversation shown, a compare group's side by side,
// or what to do to start one.
func (p *ChatPage) renderConvs(v store.View, group []wire.Chat, inline map[string][]wire.Ask) app.UI {
	if len(group) == 0 {
		text := "Choose a model and tools above, then write your first message below."
		if p.selected != "" && v.Loaded {
			text = "That conversation no longer exists. " + text
		}
		return app.P().Class("chat-start", "sb-empty").Text(text)
	}
	names := make(map[string]string, len(v.Snapshot.Servers))
	for _, s := range v.Snapshot.Servers {
		names[s.ID] = s.Name
	}
	busy, online := anyRunning(group), v.Status == store.StatusLive
	conv := func(c wire.Chat) app.UI {
		asks := inline[c.ID]
		return &ChatConv{
			Chat: c, Live: liveTurn(v.Snapshot.ChatTurns, c.ID), Busy: busy,
			Asks: asks, AskStatus: askStatusOf(v.AskStatus, asks), ServerNames: names, Online: online,
		}
	}
	if len(group) == 1 {
		return conv(group[0])
	}
	return app.Div().Class("chat-compare").Body(
		app.Range(group).Slice(func(i int) app.UI { return conv(group[i]) }),
	)
}

// askStatusOf is this dashboard's ops on asks, of those given.
func askStatusOf(all map[string]store.AskStatus, asks []wire.Ask) map[string]store.AskStatus {
	var out map[string]store.AskStatus
	for _, a := range asks {
		if st, ok := all[a.ID]; ok {
			if out == nil {
				out = map[string]store.AskStatus{}
			}
			out[a.ID] = st
		}
	}
	return out
}
