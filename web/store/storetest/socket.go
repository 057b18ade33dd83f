package storetest

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// watchedSocket is one socket of the client as the watch sees it: the
// hello the client sends on it, the frames it receives, and its end.
type watchedSocket struct {
	w     *watch
	inner store.Socket
	n     int // 1 for the client's first socket

	mu     sync.Mutex
	seq    uint64 // of the last snapshot or delta received
	before uint64 // seq before the last frame received
	last   string // the last frame received, described
	code   int    // the close code reported, 0 while open
}

// dropper is a socket a test can end from the relay's side.
type dropper interface {
	drop()
}

// Send implements [store.Socket], noting the hello.
func (s *watchedSocket) Send(text string) error {
	if f, err := wire.Decode([]byte(text)); err == nil && f.Type == wire.TypeHello {
		var h wire.Hello
		if json.Unmarshal(f.Data, &h) == nil {
			s.w.note(func() { s.w.hellos = append(s.w.hellos, h) })
		}
	}
	return s.inner.Send(text)
}

// Close implements [store.Socket]. The client closes a socket only when it
// gives up on its stream to resync (see store.CloseNormal): a fault.
func (s *watchedSocket) Close(code int, reason string) {
	s.mu.Lock()
	last, before := s.last, s.before
	s.mu.Unlock()
	s.w.fault("the client resynced: it gave up on socket %d after a %s (the stream before it had reached seq %d)", s.n, last, before)
	s.inner.Close(code, reason)
}

// deliver hands a frame to the client through message, noting it before
// and, for a snapshot or delta, that the client applied it after.
func (s *watchedSocket) deliver(text string, message func(string)) {
	state := s.received(text)
	message(text)
	if state {
		s.handled()
	}
}

// received notes a frame before the client gets it, and reports whether
// it is a snapshot or a delta.
func (s *watchedSocket) received(text string) bool {
	f, err := wire.Decode([]byte(text))
	if err != nil {
		s.w.fault("socket %d received a frame the client cannot read (%v): %s", s.n, err, clip(text))
		return false
	}
	s.mu.Lock()
	s.last = fmt.Sprintf("%s frame with seq %d", f.Type, f.Seq)
	switch f.Type {
	case wire.TypeSnapshot, wire.TypeDelta:
		s.before, s.seq = s.seq, f.Seq
	case wire.TypeSynced:
		s.before = s.seq
	}
	s.mu.Unlock()
	return f.Type == wire.TypeSnapshot || f.Type == wire.TypeDelta
}

// handled notes that the client handled the snapshot or delta received
// last: its view shows that state (or, had it to resync, a fault says so).
func (s *watchedSocket) handled() {
	s.mu.Lock()
	seq := s.seq
	s.mu.Unlock()
	s.w.note(func() { s.w.applied = seq })
}

// ended notes the socket's close code.
func (s *watchedSocket) ended(code int) {
	s.w.note(func() {
		s.mu.Lock()
		s.code = code
		s.mu.Unlock()
	})
}

// closeCode returns the code the socket closed with, 0 while open.
func (s *watchedSocket) closeCode() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code
}

// clip shortens text for a message.
func clip(text string) string {
	const limit = 120
	if len(text) <= limit {
		return fmt.Sprintf("%q", text)
	}
	return fmt.Sprintf("%q...", text[:limit])
}
