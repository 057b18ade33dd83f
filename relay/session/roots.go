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
	LogLevel string
	Journal  conn.Journal
}

// ClientFeatures returns the client features of a connection to reg, as
// the person chose them. The session calls it to load a [Dial].
func (m *Manager) ClientFeatures(reg store.Server) ClientFeatures {
	s := m.Session(reg.User)
	s.prefsMu.Lock()
	defer s.prefsMu.Unlock()
	s.mu.Lock()
	e := s.servers[reg.ID]
	s.mu.Unlock()
	var level string
	if e != nil {
		level = s.prefsOf(e).LogLevel
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return ClientFeatures{Roots: s.rootsForLocked(e), LogLevel: level, Journal: serverJournal{s: s, server: reg.ID}}
}

// prefsOf returns e's client preferences, read from the store the first
// time (a failure is logged and leaves the defaults). The caller holds
// prefsMu, not mu.
func (s *Session) prefsOf(e *entry) clientPrefs {
	s.mu.Lock()
	prefs, loaded := e.prefs, e.prefsLoaded
	s.mu.Unlock()
	if loaded {
		return prefs
	}
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	prefs, err := s.m.store.ClientPrefs(ctx, s.user, e.reg.ID)
	if err != nil {
		s.m.logger.Error("read client preferences", "user", s.user, "server", e.reg.ID, "err", err)
	}
	s.mu.Lock()
	e.prefs, e.prefsLoaded = prefs, err == nil
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

// rootsForLocked is the roots server e sees: none when hidden from it.
func (s *Session) rootsForLocked(e *entry) []wire.Root {
	if e != nil && e.prefs.RootsHidden {
		return nil
	}
	return slices.Clone(s.roots)
}

// stampClientLocked puts the person's client preferences into a server's state.
func stampClientLocked(e *entry, st *wire.Server) {
	st.RootsExcluded = e.prefs.RootsHidden
	if st.Logging != nil {
		st.Logging = &wire.Logging{Level: e.prefs.LogLevel}
	}
}

// syncClient gives a newly installed connection the current roots and log
// level, in case they changed while it was being dialed.
func (s *Session) syncClient(e *entry) {
	s.mu.Lock()
	c, roots := e.conn, s.rootsForLocked(e)
	s.mu.Unlock()
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
		return struct{}{}, s.ExcludeRoots(ctx, a.Server, a.Excluded)
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
		return wire.NewError(wire.CodeInternal, "could not save the roots")
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
		if e := s.servers[id]; e.conn != nil {
			offers = append(offers, offer{e.conn, s.rootsForLocked(e)})
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

// ExcludeRoots hides the person's roots from server id (it sees an empty
// list), or offers them again.
func (s *Session) ExcludeRoots(ctx context.Context, id string, excluded bool) error {
	s.prefsMu.Lock()
	defer s.prefsMu.Unlock()
	c, err := s.changePrefsLocked(ctx, id, func(p *clientPrefs) { p.RootsHidden = excluded })
	if err != nil || c == nil {
		return err
	}
	s.mu.Lock()
	e := s.servers[id]
	var roots []wire.Root
	if e != nil {
		roots = s.rootsForLocked(e)
	}
	s.mu.Unlock()
	c.SetRoots(roots)
	return nil
}

// changePrefsLocked changes and stores server id's client preferences,
// shows them on the dashboards, and returns the server's connection (nil
// while it is dialed: the dial reads the new preferences). The caller holds
// prefsMu until it has passed the change on to the connection, so that
// changes reach it in order.
func (s *Session) changePrefsLocked(ctx context.Context, id string, change func(*clientPrefs)) (Connection, error) {
	s.mu.Lock()
	e, ok := s.servers[id]
	s.mu.Unlock()
	if !ok {
		return nil, wire.NewError(wire.CodeNotFound, "no such server")
	}
	prefs := s.prefsOf(e)
	change(&prefs)
	if err := s.m.store.SetClientPrefs(ctx, s.user, id, prefs); err != nil {
		s.m.logger.Error("store client preferences", "user", s.user, "server", id, "err", err)
		return nil, wire.NewError(wire.CodeInternal, "could not save the change")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.servers[id] != e {
		return nil, wire.NewError(wire.CodeNotFound, "the server was removed")
	}
	e.prefs, e.prefsLoaded = prefs, true
	st := e.state
	s.stampLocked(e, &st)
	changes := wire.DiffServer(e.state, st)
	e.state = st
	s.publishLocked(changes)
	return e.conn, nil
}
