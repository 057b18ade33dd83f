package agentkeys

import (
	"context"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// HandleOps registers the dashboard's ops on agent keys: list, create,
// revoke.
func (k *Keys) HandleOps(mux *ops.Mux) {
	mux.Handle(wire.OpListAgentKeys, func(ctx context.Context, r ops.Request) (any, error) {
		keys, err := k.ListKeys(ctx, r.User)
		if keys == nil {
			keys = []wire.AgentKey{}
		}
		return wire.AgentKeysResult{Keys: keys}, err
	})
	mux.Handle(wire.OpCreateAgentKey, ops.With(func(ctx context.Context, user string, a wire.CreateAgentKeyArgs) (any, error) {
		return k.CreateKey(ctx, user, a)
	}))
	mux.Handle(wire.OpRevokeAgentKey, ops.With(func(ctx context.Context, user string, a wire.AgentKeyArgs) (any, error) {
		return struct{}{}, k.RevokeKey(ctx, user, a.ID)
	}))
}
