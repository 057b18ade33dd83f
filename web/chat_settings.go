package web

import (
	"encoding/json"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ChatSettings is the chat's settings panel: the configured models, each
// with a write-only form for the person's own key, and the approval policy
// of every tool of the ready servers.
type ChatSettings struct {
	app.Compo
	mounted

	Models  []wire.ChatModel
	Servers []wire.Server

	listed    []wire.ChatModel // the models as the relay listed them after a key changed
	listedFor []wire.ChatModel // Models then; other Models replace listed
	relisted  bool
	problem   string
}

// Render implements app.Composer.
func (s *ChatSettings) Render() app.UI {
	models := s.models()
	return app.Section().Class("chat-settings").Aria("labelledby", "chat-settings-title").Body(
		app.H2().ID("chat-settings-title").Class("sb-section-title").Text("Chat settings"),
		app.Section().Class("chat-models").Aria("labelledby", "chat-models-title").Body(
			app.H3().ID("chat-models-title").Text("Models"),
			app.If(len(models) == 0, func() app.UI {
				return app.P().Class("sb-empty").Text("No model is configured.")
			}).Else(func() app.UI {
				return app.Ul().Class("chat-model-list").Body(
					app.Range(models).Slice(func(i int) app.UI {
						return &chatModelRow{Model: models[i], Index: i, OnChanged: s.relist}
					}),
				)
			}),
			app.P().Class("sb-error").Role("alert").Text(s.problem),
		),
		&chatPolicies{Servers: s.Servers},
	)
}

// models are the models shown: the relay's latest list, unless the parent
// gave other models since.
func (s *ChatSettings) models() []wire.ChatModel {
	if s.relisted && slices.Equal(s.listedFor, s.Models) {
		return s.listed
	}
	return s.Models
}

// relist asks the relay for the models again, after a key changed.
func (s *ChatSettings) relist(ctx app.Context) {
	send(wire.OpChatModels, struct{}{}, func(r store.Reply) {
		s.later(func(app.Context) {
			if r.Err != nil {
				s.problem = opFailure("The key changed, but the models could not be listed again: ", r.Err)
				return
			}
			var res wire.ChatModelsResult
			if err := json.Unmarshal(r.Data, &res); err != nil {
				s.problem = "The key changed, but the relay's list of models could not be read."
				return
			}
			s.listed, s.listedFor, s.relisted, s.problem = res.Models, slices.Clone(s.Models), true, ""
		})
	})
}
