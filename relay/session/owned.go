package session

import (
	"context"
	"fmt"
)

// A replica's manager ([Config.OnDemand]) serves only the users it owns
// (relay/replica). Own starts a user's session from the store when the
// replica takes the user; Release ends it when the replica lets the user go.
// Sessions that exist without being owned (something asked for one) hold
// no connection, and Sync and Restore leave them alone.

// Own starts user's session, if it has not started: the operator's servers
// and every server registered in the store are added and connected, and
// their tasks followed again, as Restore does at a relay's start. A manager
// that is not on demand started every session already.
func (m *Manager) Own(ctx context.Context, user string) error {
	s := m.Session(user)
	m.mu.Lock()
	started := s.owned
	s.owned = true
	m.mu.Unlock()
	if started || !m.onDemand {
		return nil
	}
	regs, err := m.store.Servers(ctx, user)
	if err != nil {
		return fmt.Errorf("restore %s: %w", user, err)
	}
	s.startConfigured()
	for _, reg := range regs {
		s.restore(reg)
	}
	return nil
}

// Release ends user's session: its dashboards are told the relay is
// restarting it (they reconnect), its calls end and its connections close.
// The next use of the user starts a session anew.
func (m *Manager) Release(user string) {
	m.mu.Lock()
	s, ok := m.sessions[user]
	if ok {
		delete(m.sessions, user)
	}
	m.mu.Unlock()
	if ok {
		s.close()
	}
}

// owns says whether user's session runs here: always, unless on demand.
func (m *Manager) owns(s *Session) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.onDemand || s.owned
}

// lookup returns user's session if it exists.
func (m *Manager) lookup(user string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[user]
	return s, ok
}
