package session

import "slices"

// Go-level listeners of a session: the agent gateway's views follow the
// user's servers through them, and read the servers from their owners.

// watcher is one Go-level listener of a session's changes.
type watcher struct{ fn func(server string) }

// Watch calls fn with a server's id each time that server is added,
// changes state or lists (those agents see included), or is removed,
// until stop is called. Asks, calls, journal lines and the agent call log
// are no server change (an agent's every call would otherwise make each
// view list the server again). fn is called under the session's lock: it
// must return at once and not call back.
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

// notifyLocked tells the watchers that server changed.
func (s *Session) notifyLocked(server string) {
	for _, w := range s.watchers {
		w.fn(server)
	}
}
