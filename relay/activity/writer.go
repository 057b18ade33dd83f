package activity

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxPendingCalls bounds the records waiting for the store; beyond it a
// record is shown in the dashboards but not kept (the store keeps only the
// latest store.MaxAgentCalls per user anyway).
const maxPendingCalls = 4 * store.MaxAgentCalls

// activityBatchDelay is how long the writer gathers ended calls before it
// writes them: a commit (and its fsync) per batch rather than per call.
// The dashboards see an ended call this much later; a listing of the log
// does not wait for it ([Log.Flush]).
const activityBatchDelay = 25 * time.Millisecond

// pending is an ended call waiting to be written.
type pending struct {
	user  string
	call  wire.AgentCall
	shown func(wire.AgentCall) // told once the call is written, or not
}

// writer writes ended calls off the calls' path: one goroutine at
// a time takes what is pending and writes it in one transaction, so that a
// call never waits for SQLite's single writer and a burst costs one commit.
// Its zero value is ready.
type writer struct {
	pending  []pending
	written  chan struct{} // closed once pending is written; nil when nothing is pending
	inflight chan struct{} // closed once the batch being written is; nil when none is
	hurry    chan struct{} // cuts the writer's gathering short; one slot
}

// enqueue hands the ended call p to the writer, starting it if needed.
func (l *Log) enqueue(p pending) {
	l.mu.Lock()
	w := &l.w
	if len(w.pending) >= maxPendingCalls {
		l.mu.Unlock()
		l.logError("log agent call", "user", p.user, "err", "too many calls waiting for the store")
		p.shown(p.call)
		return
	}
	w.pending = append(w.pending, p)
	if w.written == nil {
		w.written = make(chan struct{})
	}
	if w.inflight == nil {
		w.inflight = w.written
		if w.hurry == nil {
			w.hurry = make(chan struct{}, 1)
		}
		go l.write(w.hurry)
	}
	l.mu.Unlock()
}

// write writes what is pending until nothing is, gathering calls for
// activityBatchDelay (or until hurry) before each batch.
func (l *Log) write(hurry <-chan struct{}) {
	t := time.NewTimer(activityBatchDelay)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-hurry:
		}
		t.Reset(activityBatchDelay)
		l.mu.Lock()
		batch, done := l.w.pending, l.w.written
		l.w.pending, l.w.written, l.w.inflight = nil, nil, done
		if len(batch) == 0 {
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		calls := make([]store.AgentCall, len(batch))
		for i, p := range batch {
			calls[i] = storedCall(p.user, p.call)
		}
		out, err := l.Store.AddAgentCalls(context.Background(), calls)
		if err != nil {
			l.logError("log agent calls", "calls", len(calls), "err", err)
		}
		for i, p := range batch {
			if err != nil {
				p.shown(p.call)
			} else {
				p.shown(wireCall(out[i]))
			}
		}
		close(done)
	}
}

// Flush returns once every call ended before it is written (or its write
// failed), or when ctx ends.
func (l *Log) Flush(ctx context.Context) {
	l.mu.Lock()
	wait := l.w.written // the last batch; the writer writes in order
	if wait == nil {
		wait = l.w.inflight
	}
	hurry := l.w.hurry
	l.mu.Unlock()
	if wait == nil {
		return
	}
	select {
	case hurry <- struct{}{}:
	default:
	}
	select {
	case <-wait:
	case <-ctx.Done():
	}
}
