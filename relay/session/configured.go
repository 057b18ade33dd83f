package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ConfiguredServer is a server of the relay operator's configuration (a
// stdio server): every user's session has it, with a connection (and so a
// process) of its own, from the session's start to its end. It is never
// stored, and no op can add, edit or remove it.
type ConfiguredServer struct {
	ID   string // unique among configured servers; never a stored server's
	Name string
}

// UseConfigured gives every session the operator's servers. Call it before
// any session exists.
func (m *Manager) UseConfigured(servers []ConfiguredServer) { m.configured = servers }

// isConfigured reports whether reg is one of the operator's servers.
func isConfigured(reg store.Server) bool { return reg.Transport == wire.TransportStdio }

// refuseConfigured is the error of an op that would change an operator's server.
func refuseConfigured(reg store.Server, what string) error {
	return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("%q comes from the relay's configuration: it cannot be %s from the dashboard (ask the relay's operator)",
		reg.Name, what))
}

// startConfigured adds the operator's servers to a new session and
// connects them.
func (s *Session) startConfigured() {
	var added []*entry
	s.mu.Lock()
	for _, c := range s.m.configured {
		if _, ok := s.servers[c.ID]; ok || s.closed {
			continue
		}
		reg := store.Server{User: s.user, ID: c.ID, Name: c.Name, Transport: wire.TransportStdio, CreatedAt: time.Now()}
		added = append(added, s.addEntryLocked(reg))
	}
	s.mu.Unlock()
	for _, e := range added {
		s.connect(e)
	}
}

// refuseOnConfigured is the refusal of an op (what: "authorized with OAuth")
// on a server of the operator's configuration, or nil for any other
// server; data are the op's arguments, which name the server.
func (s *Session) refuseOnConfigured(data json.RawMessage, what string) error {
	var args wire.ServerArgs
	if json.Unmarshal(data, &args) != nil {
		return nil // the op's own decoding says what is wrong
	}
	s.mu.Lock()
	e, ok := s.servers[args.Server]
	s.mu.Unlock()
	if ok && isConfigured(e.reg) {
		return refuseConfigured(e.reg, what)
	}
	return nil
}
