package storetest

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// errClosed refuses a dial once the dashboard was closed.
var errClosed = errors.New("storetest: the dashboard is closed")

// watch is what a Dashboard and its copies for subtests share: the change
// signal, the sockets the client opened and what went wrong on them.
type watch struct {
	timeout time.Duration
	// dialMu lets one call into the client that may dial run at a time;
	// see dialing.
	dialMu sync.Mutex

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced at every change
	gate     chan struct{} // closed once the dialing call now running returned
	closed   bool
	sockets  []*watchedSocket // in the order they were dialed
	hellos   []wire.Hello
	dialErr  error    // the last failed dial, for the summary
	faults   []string // resyncs and unreadable frames, in order
	reported int      // faults reported to the test already
	expect   bool     // the test expects a resync
	applied  uint64   // seq of the last snapshot or delta the client handled
}

func newWatch(timeout time.Duration) *watch {
	open := make(chan struct{})
	close(open) // a dial outside dialing holds nothing
	return &watch{timeout: timeout, changed: make(chan struct{}), gate: open}
}

// signal wakes every wait for a change.
func (w *watch) signal() {
	w.mu.Lock()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// changes returns a channel closed at the next change.
func (w *watch) changes() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

// dialing runs f, a call into the client that may dial (Start, a
// reconnection, Reauth), and holds the events of the sockets it opens
// until it returned. The client stores a socket only after the Dialer
// returned it; an event it got before that would be lost, which a browser
// never does (its events wait for the script to yield) but another
// goroutine may.
func (w *watch) dialing(f func()) {
	w.dialMu.Lock()
	defer w.dialMu.Unlock()
	gate := make(chan struct{})
	w.mu.Lock()
	w.gate = gate
	w.mu.Unlock()
	defer close(gate)
	f()
}

// after runs f, a reconnection, after d unless the dashboard is closed by
// then: it is the client's Config.AfterFunc.
func (w *watch) after(d time.Duration, f func()) {
	time.AfterFunc(d, func() {
		if !w.isClosed() {
			w.dialing(f)
		}
	})
}

func (w *watch) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// dialer wraps dial so that the watch sees every socket, what the client
// sends on it and what it receives.
func (w *watch) dialer(dial store.Dialer) store.Dialer {
	return func(url string, h store.Handlers) (store.Socket, error) {
		w.mu.Lock()
		gate, closed := w.gate, w.closed
		w.mu.Unlock()
		if closed {
			return nil, errClosed
		}
		s := &watchedSocket{w: w}
		inner, err := dial(url, store.Handlers{
			Open:    func() { <-gate; h.Open() },
			Message: func(text string) { <-gate; s.deliver(text, h.Message) },
			Closed:  func(code int) { <-gate; s.ended(code); h.Closed(code) },
		})
		if err != nil {
			w.note(func() { w.dialErr = err })
			return nil, err
		}
		s.inner = inner
		w.mu.Lock()
		s.n = len(w.sockets) + 1
		w.sockets = append(w.sockets, s)
		closed = w.closed
		w.mu.Unlock()
		if closed { // closed while dialing
			inner.Close(store.CloseNormal, "test over")
		}
		return s, nil
	}
}

// note runs edit under the lock and signals a change.
func (w *watch) note(edit func()) {
	w.mu.Lock()
	edit()
	w.mu.Unlock()
	w.signal()
}

// fault records something that makes the client resync or lose a frame.
func (w *watch) fault(format string, args ...any) {
	w.note(func() {
		if !w.closed {
			w.faults = append(w.faults, fmt.Sprintf(format, args...))
		}
	})
}

// unreported returns the faults not reported yet, and marks them reported;
// none while the test expects a resync.
func (w *watch) unreported() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.expect || w.reported == len(w.faults) {
		return nil
	}
	out := w.faults[w.reported:]
	w.reported = len(w.faults)
	return out
}

// appliedSeq returns the seq of the last snapshot or delta the client handled.
func (w *watch) appliedSeq() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.applied
}

// count returns how many sockets the client opened.
func (w *watch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.sockets)
}

// last returns the newest socket, nil if none was opened.
func (w *watch) last() *watchedSocket {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.sockets) == 0 {
		return nil
	}
	return w.sockets[len(w.sockets)-1]
}

// close stops all reconnection and closes every socket.
func (w *watch) close() {
	w.mu.Lock()
	w.closed = true
	sockets := w.sockets
	w.mu.Unlock()
	for _, s := range sockets {
		s.inner.Close(store.CloseNormal, "test over")
	}
	w.signal()
}
