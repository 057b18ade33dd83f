package session

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Roots are the person's directories offered to every server (MCP roots).
// They live in the session, are stored per user, and travel to dashboards
// as one KindRoots change carrying the whole (short) list. Every
// connection holds them; changing them makes each connection send
// notifications/roots/list_changed. A person may hide the roots from a
// server: the server still sees the roots capability, but an empty list,
// so that hiding and showing again take effect at once, without
// reconnecting. That choice and the log level asked of the server are the
// server's client preferences, stored with a foreign key to the server.

// RootsStore is the persistence of roots and client preferences;
// *store.Store satisfies it.
type RootsStore interface {
	Roots(ctx context.Context, user string) ([]store.Root, error)
	SetRoots(ctx context.Context, user string, roots []store.Root) error
	ClientPrefs(ctx context.Context, user, id string) (store.ClientPrefs, error)
	SetClientPrefs(ctx context.Context, user, id string, p store.ClientPrefs) error
}

// clientPrefs are what a person chose for one server's client features.
type clientPrefs = store.ClientPrefs

// ClientFeatures is what a connection to a server needs of the person's
// client features: the roots to offer, the log level to ask for, and the
// journal that receives the server's logs and notifications.
type ClientFeatures struct {
	Roots    []wire.Root
	LogLevel wire.LogLevel
	Journal  conn.Journal
}

// clientFeatures returns the client features of a connection to the
// server, as the person chose them, to load a [Dial].
func (o *Server) clientFeatures() ClientFeatures {
	s := o.s
	s.prefsMu.Lock()
	defer s.prefsMu.Unlock()
	level := o.prefsOf().LogLevel
	s.mu.Lock()
	defer s.mu.Unlock()
	return ClientFeatures{Roots: o.rootsLocked(), LogLevel: wire.LogLevel(level), Journal: serverJournal{o}}
}

// prefsOf returns the server's client preferences, read from the store the
// first time (a failure is logged and leaves the defaults). The caller
// holds prefsMu, not mu.
func (o *Server) prefsOf() clientPrefs {
	s := o.s
	s.mu.Lock()
	prefs, loaded := o.prefs, o.prefsLoaded
	s.mu.Unlock()
	if loaded {
		return prefs
	}
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	prefs, err := s.m.store.ClientPrefs(ctx, s.user, o.reg.ID)
	if err != nil {
		s.m.logger.Error("read client preferences", "user", s.user, "server", o.reg.ID, "err", err)
	}
	s.mu.Lock()
	o.prefs, o.prefsLoaded = prefs, err == nil
	s.mu.Unlock()
	return prefs
}

// loadRoots reads the user's roots when the session starts. A failure is
// logged: the session starts without roots, and the next edit stores them.
func (s *Session) loadRoots() {
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	stored, err := s.m.store.Roots(ctx, s.user)
	if err != nil {
		s.m.logger.Error("read roots", "user", s.user, "err", err)
		return
	}
	for _, r := range stored {
		s.roots = append(s.roots, wire.Root{URI: r.URI, Name: r.Name})
	}
}

// rootsLocked is the roots the server sees: none when hidden from it.
func (o *Server) rootsLocked() []wire.Root {
	if o.prefs.RootsHidden {
		return nil
	}
	return slices.Clone(o.s.roots)
}

// syncClient gives a newly installed connection the current roots, in
// case they changed while it was being dialed.
func (o *Server) syncClient() {
	o.s.mu.Lock()
	c, roots := o.conn, o.rootsLocked()
	o.s.mu.Unlock()
	if c != nil {
		c.SetRoots(roots)
	}
}

// handleRootsOps registers the ops on roots.
func (m *Manager) handleRootsOps(mux *ops.Mux) {
	mux.Handle(wire.OpSetRoots, on(m, func(ctx context.Context, s *Session, a wire.SetRootsArgs) (any, error) {
		return struct{}{}, s.SetRoots(ctx, a.Roots)
	}))
	mux.Handle(wire.OpExcludeRoots, on(m, func(ctx context.Context, s *Session, a wire.ExcludeRootsArgs) (any, error) {
		o, err := s.server(a.Server)
		if err != nil {
			return nil, err
		}
		return struct{}{}, o.ExcludeRoots(ctx, a.Excluded)
	}))
}

// SetRoots validates and stores the person's roots, shows them on every
// dashboard and offers them to every server they are not hidden from.
func (s *Session) SetRoots(ctx context.Context, roots []wire.Root) error {
	if err := wire.CheckRoots(roots); err != nil {
		return wire.NewError(wire.CodeBadRequest, err.Error())
	}
	s.prefsMu.Lock()
	defer s.prefsMu.Unlock()
	stored := make([]store.Root, len(roots))
	for i, r := range roots {
		stored[i] = store.Root{URI: r.URI, Name: r.Name}
	}
	if err := s.m.store.SetRoots(ctx, s.user, stored); err != nil {
		s.m.logger.Error("store roots", "user", s.user, "err", err)
		return storeFailed(err, "could not save the roots")
	}
	s.mu.Lock()
	s.roots = slices.Clone(roots)
	b, _ := json.Marshal(s.roots) // roots always marshal
	s.publishLocked([]wire.Change{{Kind: wire.KindRoots, Value: b}})
	type offer struct {
		c     Connection
		roots []wire.Root
	}
	var offers []offer
	for _, id := range s.order {
		if o := s.servers[id]; o.conn != nil {
			offers = append(offers, offer{o.conn, o.rootsLocked()})
		}
	}
	s.mu.Unlock()
	// In parallel, since each server is told in turn and a slow one could
	// hold up the others; the next edit waits for this one (prefsMu).
	var wg sync.WaitGroup
	for _, o := range offers {
		wg.Go(func() { o.c.SetRoots(o.roots) })
	}
	wg.Wait()
	return nil
}

// ExcludeRoots hides the person's roots from the server (it sees an empty
// list), or offers them again.
func (o *Server) ExcludeRoots(ctx context.Context, excluded bool) error {
	s := o.s
	s.prefsMu.Lock()
	defer s.prefsMu.Unlock()
	c, err := o.changePrefs(ctx, func(p *clientPrefs) { p.RootsHidden = excluded })
	if err != nil || c == nil {
		return err
	}
	s.mu.Lock()
	roots := o.rootsLocked()
	s.mu.Unlock()
	c.SetRoots(roots)
	return nil
}

// changePrefs changes and stores the server's client preferences, shows
// them on the dashboards, and returns its connection (nil while it is
// dialed: the dial reads the new preferences). The caller holds prefsMu
// until it has passed the change on to the connection, so that changes
// reach it in order.
func (o *Server) changePrefs(ctx context.Context, change func(*clientPrefs)) (Connection, error) {
	s := o.s
	prefs := o.prefsOf()
	change(&prefs)
	if err := s.m.store.SetClientPrefs(ctx, s.user, o.reg.ID, prefs); err != nil {
		s.m.logger.Error("store client preferences", "user", s.user, "server", o.reg.ID, "err", err)
		return nil, storeFailed(err, "could not save the change")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.closed {
		return nil, wire.NewError(wire.CodeNotFound, "the server was removed")
	}
	o.prefs, o.prefsLoaded = prefs, true
	o.restampLocked()
	if o.conn == nil {
		return nil, nil
	}
	return o.conn, nil
}
