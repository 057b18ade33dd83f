package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Sync makes the sessions' servers match the registrations in the store:
// servers registered elsewhere (the command line, writing the same data
// directory) are connected, servers removed elsewhere are closed and leave
// the dashboards. Only the users whose servers changed since the last Sync
// are read again (the store's change marks; the first Sync reads every user
// ever marked), so a write elsewhere in the store costs one indexed query.
// Each session decides under its lock, against the store read then, so a
// server a dashboard adds or removes meanwhile is not undone.
func (m *Manager) Sync(ctx context.Context) error {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	marks, err := m.store.ServerMarksSince(ctx, m.synced)
	if err != nil {
		return fmt.Errorf("sync registrations: %w", err)
	}
	for _, mk := range marks {
		s, ok := m.lookup(mk.User)
		if !ok && m.onDemand || ok && !m.owns(s) {
			continue // another replica's user, or none yet: Own reads the store
		}
		if !ok {
			s = m.Session(mk.User)
		}
		if err := s.sync(ctx); err != nil {
			return err // m.synced stays: the next Sync tries again
		}
	}
	if len(marks) > 0 {
		m.synced = marks[len(marks)-1].Seq
	}
	return nil
}

// sync adds and removes this user's servers to match the store.
func (s *Session) sync(ctx context.Context) error {
	s.config.Lock()
	defer s.config.Unlock()
	// Read under the config lock, not the state lock: Add and RemoveServer
	// write the store under it, so what is read here agrees with the
	// entries, and no delta or op waits on the store meanwhile.
	regs, err := s.m.store.Servers(ctx, s.user)
	if err != nil {
		return fmt.Errorf("sync %s: %w", s.user, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	stored := make(map[string]store.Server, len(regs))
	for _, r := range regs {
		stored[r.ID] = r
	}
	var added []*Server
	for _, r := range regs {
		if _, ok := s.servers[r.ID]; !ok && !isConfigured(r) {
			added = append(added, s.newServerLocked(r))
		}
	}
	var gone []Connection
	var goneIDs []string
	for _, id := range slices.Clone(s.order) {
		if o := s.servers[id]; stored[id].ID == "" && !isConfigured(o.reg) {
			goneIDs = append(goneIDs, id)
			if c := o.closeLocked(); c != nil {
				gone = append(gone, c)
			}
		}
	}
	s.mu.Unlock()
	for _, o := range added {
		s.m.logger.Info("server registered elsewhere", "user", s.user, "server", o.reg.ID)
		o.connect()
	}
	for _, id := range goneIDs {
		s.m.logger.Info("server removed elsewhere", "user", s.user, "server", id)
	}
	for _, c := range gone {
		c.Close()
	}
	return nil
}
