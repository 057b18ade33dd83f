package session

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Agents is the agent side of the relay as sessions use it: the user's agent
// keys and the log of their calls. The gateway satisfies it; its errors are
// [*wire.Error] fit to show.
type Agents interface {
	ListKeys(ctx context.Context, user string) ([]wire.AgentKey, error)
	// CreateKey mints a key; the result's Secret is its only copy.
	CreateKey(ctx context.Context, user string, args wire.CreateAgentKeyArgs) (wire.CreateAgentKeyResult, error)
	// RevokeKey revokes a key and closes its agent's live sessions.
	RevokeKey(ctx context.Context, user, id string) error
	Activity(ctx context.Context, user string, args wire.ListActivityArgs) ([]wire.AgentCall, error)
}

// UseAgents makes the sessions answer the agent ops with a. It is not in
// [Config] because the agent side is built on the manager (its call log
// reads the sessions); call it before any session exists.
func (m *Manager) UseAgents(a Agents) { m.agents = a }

// agentsOp runs the agent key and activity ops.
func (s *Session) agentsOp(ctx context.Context, f wire.Frame) (any, error) {
	a := s.m.agents
	if a == nil {
		return nil, wire.NewError(wire.CodeUnknownOp, "this relay has no agent endpoint")
	}
	switch f.Op {
	case wire.OpListAgentKeys:
		keys, err := a.ListKeys(ctx, s.user)
		if keys == nil {
			keys = []wire.AgentKey{}
		}
		return wire.AgentKeysResult{Keys: keys}, err
	case wire.OpCreateAgentKey:
		return withArgs(f.Data, func(args wire.CreateAgentKeyArgs) (any, error) { return a.CreateKey(ctx, s.user, args) })
	case wire.OpRevokeAgentKey:
		return withArgs(f.Data, func(args wire.AgentKeyArgs) (any, error) { return struct{}{}, a.RevokeKey(ctx, s.user, args.ID) })
	default:
		var args wire.ListActivityArgs
		if len(f.Data) > 0 {
			if err := decodeArgs(f.Data, &args); err != nil {
				return nil, err
			}
		}
		calls, err := a.Activity(ctx, s.user, args)
		if calls == nil {
			calls = []wire.AgentCall{}
		}
		return wire.ActivityResult{Calls: calls}, err
	}
}

// NoteAgentCall shows a finished agent call in the user's dashboards. The
// state keeps the latest [wire.MaxLiveAgentCalls]; the call itself is
// already logged by the caller.
func (s *Session) NoteAgentCall(c wire.AgentCall) { s.replaceAgentCall("", c) }

// StartAgentCall shows an agent call in progress (its Outcome
// [wire.OutcomeRunning]) and returns the id under which it shows, for
// [Session.FinishAgentCall].
func (s *Session) StartAgentCall(c wire.AgentCall) string {
	s.mu.Lock()
	s.runningCalls++
	c.ID = "running-" + strconv.FormatUint(s.runningCalls, 10)
	s.mu.Unlock()
	c.Outcome = wire.OutcomeRunning
	s.replaceAgentCall("", c)
	return c.ID
}

// FinishAgentCall replaces the running call id with the logged call c, in
// one delta; an empty id only adds c.
func (s *Session) FinishAgentCall(id string, c wire.AgentCall) { s.replaceAgentCall(id, c) }

// replaceAgentCall removes call old (if any) and appends c, dropping the
// oldest calls beyond the bound, and publishes that as one delta.
func (s *Session) replaceAgentCall(old string, c wire.AgentCall) {
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var changes []wire.Change
	if i := slices.IndexFunc(s.agentCalls, func(a wire.AgentCall) bool { return a.ID == old }); old != "" && i >= 0 {
		changes = append(changes, wire.Change{Kind: wire.KindAgentCall, Server: s.agentCalls[i].Server, Key: old, Remove: true})
		s.agentCalls = slices.Delete(s.agentCalls, i, i+1)
	}
	changes = append(changes, wire.Change{Kind: wire.KindAgentCall, Server: c.Server, Key: c.ID, Value: b})
	s.agentCalls = append(s.agentCalls, c)
	if n := len(s.agentCalls) - wire.MaxLiveAgentCalls; n > 0 {
		for _, gone := range s.agentCalls[:n] {
			changes = append(changes, wire.Change{Kind: wire.KindAgentCall, Server: gone.Server, Key: gone.ID, Remove: true})
		}
		s.agentCalls = append(s.agentCalls[:0:0], s.agentCalls[n:]...)
	}
	s.publishLocked(changes)
}

// AgentCallID is the id a logged call has on the wire.
func AgentCallID(id int64) string { return strconv.FormatInt(id, 10) }
