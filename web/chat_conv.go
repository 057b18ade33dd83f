package web

import (
	"encoding/json"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatConv is one conversation: its stored turns, read from the relay,
// with its latest turn from the state over them (see shownTurns). It reads
// again when the conversation gets a turn or its latest turn changes or
// leaves the state, and shows what it has until the answer comes.
type ChatConv struct {
	app.Compo
	mounted

	Chat        wire.Chat
	Live        *wire.ChatTurn // the state's latest turn of the conversation, if any
	Busy        bool           // a turn of the conversation or of its compare group runs
	Asks        []wire.Ask     // the conversation's waiting asks
	AskStatus   map[string]store.AskStatus
	ServerNames map[string]string
	Online      bool

	stored  []wire.ChatTurn // as last read
	loaded  bool            // a read answered
	held    *wire.ChatTurn  // the latest live turn, shown until a read has it
	readFor string          // the chatReadKey of the last read
	seq     int             // the last read's number; older answers are dropped
	problem string          // why the last read failed
}

// CompoID gives each conversation its own component.
func (c *ChatConv) CompoID() string { return c.Chat.ID }

// OnMount reads the conversation.
func (c *ChatConv) OnMount(ctx app.Context) {
	c.mounted.OnMount(ctx)
	c.sync()
}

// OnUpdate reads the conversation again when its turns changed.
func (c *ChatConv) OnUpdate(ctx app.Context) { c.sync() }

// sync keeps the latest live turn and reads when the read key changed.
func (c *ChatConv) sync() {
	if c.Live != nil {
		c.held = c.Live
	}
	if key := chatReadKey(c.Chat, c.Live); key != c.readFor && c.Online {
		c.read(key)
	}
}

// read asks the relay for the stored turns.
func (c *ChatConv) read(key string) {
	c.readFor = key
	c.seq++
	seq, hadLive := c.seq, c.Live != nil
	send(wire.OpGetChat, wire.ChatArgs{Chat: c.Chat.ID}, func(r store.Reply) {
		c.later(func(ctx app.Context) {
			if seq != c.seq {
				return // a newer read is on its way
			}
			if r.Err != nil {
				c.problem = opFailure("Could not read the conversation: ", r.Err)
				return
			}
			var res wire.GetChatResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				c.problem = "The relay's answer could not be read."
				return
			}
			c.stored, c.loaded, c.problem = res.Turns, true, ""
			ctx.NewAction(actionChatGrew)
			if !hadLive && c.Live == nil {
				c.held = nil // the turn that left the state is stored
			}
		})
	})
}

// turns are the turns shown: the earlier ones, and the latest, if any.
func (c *ChatConv) turns() ([]wire.ChatTurn, *wire.ChatTurn) {
	live := c.Live
	if live == nil {
		live = c.held
	}
	return shownTurns(c.stored, live)
}

// Render implements app.Composer.
func (c *ChatConv) Render() app.UI {
	earlier, latest := c.turns()
	var earlierCalls, latestCalls []string
	for _, t := range earlier {
		earlierCalls = append(earlierCalls, turnCalls(t)...)
	}
	if latest != nil {
		latestCalls = turnCalls(*latest)
	}
	orphans := slices.DeleteFunc(slices.Clone(c.Asks), func(a wire.Ask) bool {
		return slices.Contains(earlierCalls, a.Call) || slices.Contains(latestCalls, a.Call)
	})
	return app.Section().Class("chat-conv", choose(c.Chat.Running, "is-running", "")).DataSet("chat", c.Chat.ID).
		Aria("label", "Conversation with "+c.Chat.Model).Body(
		app.Header().Class("chat-conv-head").Body(
			app.Span().Class("chat-conv-model").Text(c.Chat.Model),
			app.If(c.Chat.Running, func() app.UI { return app.Span().Class("chat-badge").Text("Running") }),
			&ChatExport{Chat: c.Chat.ID},
		),
		app.Div().Class("chat-turns").Body(
			&ChatHistory{
				Chat: c.Chat.ID, Turns: earlier, Asks: asksOfCalls(c.Asks, earlierCalls),
				AskStatus: c.AskStatus, ServerNames: c.ServerNames, Online: c.Online,
			},
			app.If(latest != nil, func() app.UI {
				return &ChatTurnView{
					Chat: c.Chat.ID, Turn: *latest, Last: true, Busy: c.Busy,
					Asks: asksOfCalls(c.Asks, latestCalls), AskStatus: c.AskStatus,
					ServerNames: c.ServerNames, Online: c.Online,
				}
			}),
		),
		app.Range(orphans).Slice(func(i int) app.UI {
			a := orphans[i]
			return app.Div().Class("chat-ask").Body(askCardOf(a, c.AskStatus[a.ID], c.Online))
		}),
		app.If(latest == nil, func() app.UI {
			return app.P().Class("sb-empty").Text(choose(c.loaded, "No messages yet: write one below.", "Loading the conversation…"))
		}),
		app.If(c.problem != "", func() app.UI {
			return app.Div().Class("sb-error").Role("alert").Body(
				app.Text(c.problem+" "),
				app.Button().Class("sb-button", "chat-reread").Type("button").Text("Try again").
					OnClick(func(ctx app.Context, e app.Event) { c.problem = ""; c.read(chatReadKey(c.Chat, c.Live)) }),
			)
		}),
	)
}
