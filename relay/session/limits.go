package session

import "github.com/switchboard-mcp/switchboard/shared/wire"

// SetResultLimit sets the largest op result, in bytes of JSON, sent to a
// dashboard; a larger one is answered with [wire.CodeTooLarge]. Zero or
// less restores [wire.MaxResultBytes]. The connections have the same limit
// (conn.Config.MaxResultBytes), so this one catches only what the relay adds.
func (m *Manager) SetResultLimit(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maxResult = n
}

// resultLimit is the limit SetResultLimit set.
func (m *Manager) resultLimit() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.maxResult <= 0 {
		return wire.MaxResultBytes
	}
	return m.maxResult
}
