package conformance

import (
	"context"
	"sync"

	"github.com/switchboard-mcp/switchboard/relay/conn"
)

// watcher keeps the latest state a connection emitted and wakes everyone
// waiting for a change. Its report never blocks the connection.
type watcher struct {
	mu      sync.Mutex
	state   conn.State
	seq     int           // counts emits
	changed chan struct{} // closed and replaced by every emit
}

func newWatcher() *watcher {
	return &watcher{changed: make(chan struct{})}
}

// emit is the connection's report callback.
func (w *watcher) emit(s conn.State) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state = s
	w.seq++
	close(w.changed)
	w.changed = make(chan struct{})
}

// next waits for a state emitted after the one numbered seen and returns
// the latest with its number; states in between may be skipped.
func (w *watcher) next(ctx context.Context, seen int) (conn.State, int, error) {
	for {
		w.mu.Lock()
		s, seq, changed := w.state, w.seq, w.changed
		w.mu.Unlock()
		if seq > seen {
			return s, seq, nil
		}
		select {
		case <-ctx.Done():
			return conn.State{}, seen, context.Cause(ctx)
		case <-changed:
		}
	}
}
