package session

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The latest agent calls live in the user's state (KindAgentCall changes),
// so that every dashboard shows an agent's call while it runs and as it
// ends; the activity log keeps them.

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
