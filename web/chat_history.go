package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatHistory is a conversation's turns before the latest. Its own
// component, given the stored turns themselves: while the latest turn
// streams, its fields compare unchanged at once and it does not render.
type ChatHistory struct {
	app.Compo

	Chat        string
	Turns       []wire.ChatTurn
	Asks        []wire.Ask // the waiting asks raised during these turns' calls
	AskStatus   map[string]store.AskStatus
	ServerNames map[string]string
	Online      bool
}

// Render implements app.Composer.
func (h *ChatHistory) Render() app.UI {
	return app.Div().Class("chat-history").Body(
		app.Range(h.Turns).Slice(func(i int) app.UI {
			t := h.Turns[i]
			return &ChatTurnView{
				Chat: h.Chat, Turn: t, Asks: asksOfCalls(h.Asks, turnCalls(t)), AskStatus: h.AskStatus,
				ServerNames: h.ServerNames, Online: h.Online,
			}
		}),
	)
}
