package session

import (
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// What the agent gateway needs of a session: the servers, a Go-level
// listener for their changes, and their live connections, on which an
// agent's calls run exactly as a dashboard's do. The session stays the
// only owner of the state.

// Servers returns the current state of the user's servers, in registration
// order.
func (s *Session) Servers() []wire.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]wire.Server, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.servers[id].state)
	}
	return out
}

// Connection returns the live connection of server id (a [*conn.Conn] in
// the relay), or a [*wire.Error].
func (s *Session) Connection(id string) (Connection, error) {
	c, err := s.connection(id)
	if d, ok := c.(dialed); ok {
		return d.Connection, err
	}
	return c, err
}

// watcher is one Go-level listener of a session's changes.
type watcher struct{ fn func(server string) }

// Watch calls fn with a server's id each time that server is added,
// changes state or lists, or is removed, until stop is called. fn is called
// under the session's lock: it must return at once and not call back.
func (s *Session) Watch(fn func(server string)) (stop func()) {
	w := &watcher{fn: fn}
	s.mu.Lock()
	s.watchers = append(s.watchers, w)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.watchers = slices.DeleteFunc(s.watchers, func(o *watcher) bool { return o == w })
		s.mu.Unlock()
	}
}

// notifyLocked tells the watchers which servers changes touch. Only a
// server's state and lists count: asks, calls, journal lines and the agent
// call log are no server change (an agent's every call would otherwise make
// each view list the server again).
func (s *Session) notifyLocked(changes []wire.Change) {
	if len(s.watchers) == 0 {
		return
	}
	var last string
	for i, ch := range changes {
		if !describesServer(ch.Kind) || (i > 0 && ch.Server == last) {
			continue
		}
		last = ch.Server
		for _, w := range s.watchers {
			w.fn(ch.Server)
		}
	}
}

// describesServer reports whether changes of kind k are a server's state or
// lists.
func describesServer(k wire.ChangeKind) bool {
	switch k {
	case wire.KindServer, wire.KindTool, wire.KindPrompt, wire.KindResource, wire.KindTemplate:
		return true
	}
	return false
}
