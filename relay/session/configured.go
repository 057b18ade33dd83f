package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// StdioIDPrefix starts the id of every configured server; a person's ids
// may not.
const StdioIDPrefix = "stdio-"

// ConfiguredServer is a server of the relay operator's configuration (a
// stdio server): every user's session has it, with a connection (and so a
// process) of its own, from the session's start to its end. No op can add,
// edit or remove it. Each user's session stores a row for it, so that what
// belongs to the server (ask modes, subscriptions) has a server to belong to,
// and deletes the rows of servers the configuration no longer has.
type ConfiguredServer struct {
	ID   string // unique among configured servers; "stdio-" and a slug
	Name string
}

// isConfigured reports whether reg is one of the operator's servers.
func isConfigured(reg store.Server) bool { return wire.Transport(reg.Transport) == wire.TransportStdio }

// refuseConfigured is the error of an op that would change an operator's server.
func refuseConfigured(reg store.Server, what string) error {
	return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("%q comes from the relay's configuration: it cannot be %s from the dashboard (ask the relay's operator)",
		reg.Name, what))
}

// configuredTimeout bounds the store writes of a session's start.
const configuredTimeout = 5 * time.Second

// startConfigured stores the operator's servers for a new session (and
// forgets those the configuration dropped), adds them and connects them.
func (s *Session) startConfigured() {
	ctx, cancel := context.WithTimeout(context.Background(), configuredTimeout)
	defer cancel()
	stored := s.forgetUnconfigured(ctx)
	var added []*Server
	for _, c := range s.m.configured {
		reg := store.Server{User: s.user, ID: c.ID, Name: c.Name, Transport: string(wire.TransportStdio)}
		if old, ok := stored[c.ID]; ok {
			reg.Disconnected = old.Disconnected // the person's choice outlives a restart
		}
		if err := s.m.store.PutServer(ctx, reg); err != nil {
			if errors.Is(err, store.ErrNameTaken) {
				s.m.logger.Warn("configured server not offered: the user has a server of that name", "user", s.user, "server", c.ID)
				continue
			}
			s.m.logger.Error("store configured server", "user", s.user, "server", c.ID, "err", err)
		}
		reg.CreatedAt = time.Now()
		s.mu.Lock()
		if _, ok := s.servers[c.ID]; !ok && !s.closed {
			added = append(added, s.newServerLocked(reg))
		}
		s.mu.Unlock()
	}
	for _, o := range added {
		o.connect()
	}
}

// forgetUnconfigured deletes the user's stored stdio servers that the
// operator's configuration no longer has, with all that belonged to them,
// and returns those it keeps by id.
func (s *Session) forgetUnconfigured(ctx context.Context) map[string]store.Server {
	regs, err := s.m.store.Servers(ctx, s.user)
	if err != nil {
		s.m.logger.Error("list servers", "user", s.user, "err", err)
		return nil
	}
	kept := map[string]store.Server{}
	for _, r := range regs {
		if !isConfigured(r) {
			continue
		}
		if slices.ContainsFunc(s.m.configured, func(c ConfiguredServer) bool { return c.ID == r.ID }) {
			kept[r.ID] = r
			continue
		}
		if err := s.m.store.DeleteServer(ctx, s.user, r.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.m.logger.Error("delete unconfigured server", "user", s.user, "server", r.ID, "err", err)
			continue
		}
		s.m.forgetAuth(ctx, s.user, r.ID)
		s.m.logger.Info("configured server gone from the configuration", "user", s.user, "server", r.ID)
	}
	return kept
}
