package models

import (
	"context"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// HandleOps registers the dashboard's ops on models: list them, and set
// or remove the person's own key.
func (r *Registry) HandleOps(m *ops.Mux) {
	m.Handle(wire.OpChatModels, func(ctx context.Context, req ops.Request) (any, error) {
		return r.List(ctx, req.User), nil
	})
	m.Handle(wire.OpSetModelKey, ops.With(func(ctx context.Context, user string, a wire.ModelKeyArgs) (any, error) {
		return struct{}{}, r.SetKey(ctx, user, a.Model, a.Key)
	}))
}
