package web

import (
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatSetup heads the conversation: its title, its model, its tools, and,
// before the first message of a new one, Compare. A new conversation's
// choices go to the draft it is created from; a conversation's own go to
// the relay at once.
type ChatSetup struct {
	app.Compo
	mounted

	Models  []wire.ChatModel
	Servers []wire.Server
	Group   []wire.Chat // the conversations shown; none for a new one
	Draft   *chatDraft  // the new conversation's choices

	pending *toolChoice // a change of the conversations' tools on its way
	problem string      // why a change failed
}

// Render implements app.Composer.
func (s *ChatSetup) Render() app.UI {
	isNew := len(s.Group) == 0
	return app.Header().Class("chat-setup").Body(
		app.H2().ID("chat-title").Class("chat-title").Text(s.title()),
		app.Div().Class("chat-setup-fields").Body(
			app.If(len(s.Group) <= 1 && !(isNew && s.Draft.Compare), s.renderModel),
			app.If(isNew, s.renderCompare),
			s.renderTools(),
			s.renderCodeMode(),
			app.Details().Class("chat-settings-fold").Body(
				app.Summary().Text("Keys and tool approvals"),
				&ChatSettings{Models: s.Models, Servers: s.Servers},
			),
		),
		app.P().Class("sb-error").Role("alert").Text(s.problem),
	)
}

// title names what is shown.
func (s *ChatSetup) title() string {
	switch {
	case len(s.Group) == 0:
		return "New conversation"
	case len(s.Group) > 1:
		return "Compare: " + orDefault(s.Group[0].Title, "new conversation")
	}
	return orDefault(s.Group[0].Title, "New conversation")
}

// renderModel is the model select.
func (s *ChatSetup) renderModel() app.UI {
	current := s.Draft.model(s.Models)
	if len(s.Group) == 1 {
		current = s.Group[0].Model
	}
	return app.Div().Class("sb-field", "chat-model-field").Body(
		app.Label().For("chat-model").Text("Model"),
		app.Select().ID("chat-model").Class("chat-model").OnChange(s.modelChanged).Body(
			app.Range(s.Models).Slice(func(i int) app.UI {
				m := s.Models[i]
				return selectedNow(app.Option().Value(m.Name), m.Name == current).Text(modelLabel(m))
			}),
			app.If(current != "" && !slices.ContainsFunc(s.Models, func(m wire.ChatModel) bool { return m.Name == current }), func() app.UI {
				return selectedNow(app.Option().Value(current), true).Text(current + " (no longer configured)")
			}),
		),
	)
}

// modelChanged sets the draft's model, or the conversation's.
func (s *ChatSetup) modelChanged(ctx app.Context, e app.Event) {
	name := ctx.JSSrc().Get("value").String()
	if len(s.Group) == 0 {
		s.Draft.Model = name
		return
	}
	s.problem = ""
	send(wire.OpUpdateChat, wire.UpdateChatArgs{Chat: s.Group[0].ID, Model: &name}, s.answered("Could not change the model: "))
}

// renderCompare is the Compare switch and, when on, the models to compare.
func (s *ChatSetup) renderCompare() app.UI {
	d := s.Draft
	return app.Div().Class("chat-compare-field").Body(
		app.Button().Class("sb-button", "chat-compare-toggle").Type("button").
			Aria("pressed", choose(d.Compare, "true", "false")).Text("Compare models").
			OnClick(func(ctx app.Context, e app.Event) {
				s.Draft.Compare = !s.Draft.Compare
				if s.Draft.Compare && len(s.Draft.Models) == 0 {
					s.Draft.Models = []string{s.Draft.model(s.Models)}
				}
			}),
		app.If(d.Compare, func() app.UI {
			full := len(d.Models) >= wire.MaxCompare
			return app.FieldSet().Class("chat-compare-models").Body(
				app.Legend().Text("Models to compare (two or three)"),
				app.Range(s.Models).Slice(func(i int) app.UI {
					m := s.Models[i]
					on := slices.Contains(d.Models, m.Name)
					return app.Label().Class("chat-tools-row").Body(
						disabledIf(checkedNow(app.Input().Type("checkbox").Class("chat-compare-model").Value(m.Name), on), full && !on).
							OnChange(s.compareBox),
						app.Text(" "+modelLabel(m)),
					)
				}),
			)
		}),
	)
}

// compareBox takes a model in or out of the comparison.
func (s *ChatSetup) compareBox(ctx app.Context, e app.Event) {
	el := ctx.JSSrc()
	*s.Draft = s.Draft.withCompared(el.Get("value").String(), el.Get("checked").Bool())
}

// choice is the tool choice shown.
func (s *ChatSetup) choice() toolChoice {
	switch {
	case len(s.Group) == 0:
		return s.Draft.Tools
	case s.pending != nil:
		return *s.pending
	}
	return choiceOf(s.Group[0])
}

// setChoice puts a new tool choice in the draft, or in every conversation shown.
func (s *ChatSetup) setChoice(c toolChoice) {
	if len(s.Group) == 0 {
		s.Draft.Tools = c
		return
	}
	servers, tools := c.Servers, c.Tools
	if servers == nil {
		servers = []string{} // an absent list would leave the conversation's as it is
	}
	if tools == nil {
		tools = []wire.ToolRef{}
	}
	s.pending, s.problem = &c, ""
	left := len(s.Group)
	done := s.answered("Could not change the tools: ")
	for _, chat := range s.Group {
		send(wire.OpUpdateChat, wire.UpdateChatArgs{Chat: chat.ID, Servers: &servers, Tools: &tools}, func(r store.Reply) {
			done(r)
			s.later(func(app.Context) {
				if left--; left == 0 {
					s.pending = nil
				}
			})
		})
	}
}

// answered shows why an update failed.
func (s *ChatSetup) answered(failed string) func(store.Reply) {
	return func(r store.Reply) {
		if r.Err == nil {
			return
		}
		s.later(func(app.Context) { s.problem = opFailure(failed, r.Err) })
	}
}

// modelLabel names a model in a list, saying so of the scripted demo.
func modelLabel(m wire.ChatModel) string {
	if m.Provider == "demo" {
		return m.Name + " (scripted demo, not an AI)"
	}
	return m.Name
}

// renderCodeMode is the code-mode switch: the model gets search and
// execute, and writes programs over the tools, instead of calling them one
// by one.
func (s *ChatSetup) renderCodeMode() app.UI {
	on := s.Draft.CodeMode
	if len(s.Group) > 0 {
		on = s.Group[0].CodeMode
	}
	return app.Label().Class("chat-code-mode", "sb-choice").Title(
		"The model gets two tools, search and execute, and writes a short program that calls your tools; "+
			"a program that can reach a tool that asks first asks you once, showing the program.").Body(
		checkedNow(app.Input().ID("chat-code-mode").Type("checkbox"), on).OnChange(s.codeModeChanged),
		app.Text(" Code mode"),
	)
}

// codeModeChanged sets the draft's code mode, or the conversations'.
func (s *ChatSetup) codeModeChanged(ctx app.Context, e app.Event) {
	on := ctx.JSSrc().Get("checked").Bool()
	if len(s.Group) == 0 {
		s.Draft.CodeMode = on
		return
	}
	s.problem = ""
	for _, chat := range s.Group {
		send(wire.OpUpdateChat, wire.UpdateChatArgs{Chat: chat.ID, CodeMode: &on}, s.answered("Could not change code mode: "))
	}
}
