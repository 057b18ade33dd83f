package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// handleServerOps registers the ops on the user's servers: add, import,
// edit, connect, remove, retry, ping.
func (m *Manager) handleServerOps(mux *ops.Mux) {
	mux.Handle(wire.OpAddServer, on(m, func(ctx context.Context, s *Session, a wire.AddServerArgs) (any, error) { return s.Add(ctx, a) }))
	mux.Handle(wire.OpImportServers, on(m, func(ctx context.Context, s *Session, a wire.ImportServersArgs) (any, error) {
		return s.ImportServers(ctx, a)
	}))
	mux.Handle(wire.OpUpdateServer, onOwner(m, func(ctx context.Context, o *Server, a wire.UpdateServerArgs) (any, error) {
		return struct{}{}, o.Update(ctx, a)
	}))
	mux.Handle(wire.OpSetServerConnected, onOwner(m, func(ctx context.Context, o *Server, a wire.SetServerConnectedArgs) (any, error) {
		return struct{}{}, o.SetConnected(ctx, a.Connected)
	}))
	mux.Handle(wire.OpRemoveServer, on(m, func(ctx context.Context, s *Session, a wire.ServerArgs) (any, error) {
		return struct{}{}, s.RemoveServer(ctx, a.Server)
	}))
	mux.Handle(wire.OpRetryServer, onOwner(m, func(_ context.Context, o *Server, _ wire.ServerArgs) (any, error) {
		c, err := o.Connection()
		if err != nil {
			return nil, err
		}
		c.Retry()
		return struct{}{}, nil
	}))
	mux.Handle(wire.OpPing, onOwner(m, func(ctx context.Context, o *Server, _ wire.ServerArgs) (any, error) { return o.ping(ctx) }))
}

// AddServer registers a Streamable HTTP server by name and URL; see [Session.Add].
func (s *Session) AddServer(ctx context.Context, name, rawURL string) (wire.AddServerResult, error) {
	return s.Add(ctx, wire.AddServerArgs{Name: name, URL: rawURL})
}

// Add registers a server and starts connecting to it: name, URL,
// transport (auto when empty), an optional id of the caller's (normalized;
// generated when empty), custom headers and retry settings. The same name
// with the same normalized URL and transport (and id, when given) returns
// the existing server; another server with the name or the id is an error.
// Args naming a catalog entry (and nothing else) add that entry, from the
// relay's copy of the catalog.
func (s *Session) Add(ctx context.Context, args wire.AddServerArgs) (wire.AddServerResult, error) {
	args, err := s.m.fromCatalog(args)
	if err != nil {
		return wire.AddServerResult{}, err
	}
	reg, err := newRegistration(s.user, args)
	if err != nil {
		return wire.AddServerResult{}, err
	}
	s.config.Lock()
	defer s.config.Unlock()
	s.mu.Lock()
	closed := s.closed
	regs := make([]store.Server, 0, len(s.order))
	for _, id := range s.order {
		regs = append(regs, s.servers[id].reg)
	}
	s.mu.Unlock()
	if res, found, err := existingFor(reg, args, regs); found || err != nil {
		return res, err
	}
	if closed {
		return wire.AddServerResult{}, wire.NewError(wire.CodeInternal, "the relay is shutting down")
	}
	if err := storeNew(ctx, s.m.store, reg); err != nil {
		if _, ok := err.(*wire.Error); !ok {
			s.m.logger.Error("store server", "user", s.user, "err", err)
			return wire.AddServerResult{}, storeFailed(err, "could not save the server")
		}
		return wire.AddServerResult{}, err
	}
	s.mu.Lock()
	o := s.newServerLocked(reg)
	s.mu.Unlock()
	s.m.logger.Info("server added", "user", s.user, "server", reg.ID, "url", withoutQuery(reg.URL))
	o.connect()
	return wire.AddServerResult{ID: reg.ID}, nil
}

// idTaken says that id belongs to another server.
func idTaken(id, other string) error {
	if other == "" {
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the id %q is taken by another server", id))
	}
	return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the id %q is taken by the server %q", id, other))
}

// RemoveServer closes a server's owner, which takes its state, journal,
// calls and asks with it, closes its connection, and forgets it in the
// store with everything that belongs to it (one transaction: the store's
// foreign keys cascade).
func (s *Session) RemoveServer(ctx context.Context, id string) error {
	s.config.Lock()
	defer s.config.Unlock()
	o, err := s.server(id)
	if err != nil {
		return err
	}
	if reg := o.registration(); isConfigured(reg) {
		return refuseConfigured(reg, "removed")
	}
	if err := s.m.store.DeleteServer(ctx, s.user, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.m.logger.Error("delete server", "user", s.user, "server", id, "err", err)
		return storeFailed(err, "could not delete the server")
	}
	s.mu.Lock()
	var c Connection
	if !o.closed {
		c = o.closeLocked()
	}
	s.mu.Unlock()
	s.m.logger.Info("server removed", "user", s.user, "server", id)
	if c != nil {
		c.Close()
	}
	s.m.forgetAuth(ctx, s.user, id)
	return nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return wire.NewError(wire.CodeBadRequest, "a server needs a name")
	case !utf8.ValidString(name):
		return wire.NewError(wire.CodeBadRequest, "the name is not valid UTF-8")
	case utf8.RuneCountInString(name) > wire.MaxServerName:
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("the name is longer than %d characters", wire.MaxServerName))
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
		return wire.NewError(wire.CodeBadRequest, "the name contains control characters")
	}
	return nil
}

// withoutQuery is a URL fit for a log line: a query string often carries an
// API key, so it is left out.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// ping pings the server.
func (o *Server) ping(ctx context.Context) (any, error) {
	c, err := o.Connection()
	if err != nil {
		return nil, err
	}
	d, err := c.Ping(ctx)
	if err != nil {
		return nil, err
	}
	return wire.PingResult{RoundTripMillis: float64(d.Microseconds()) / 1000}, nil
}
