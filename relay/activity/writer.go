package activity

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxPendingCalls bounds the records waiting for the store; beyond it a
// record is shown in the dashboards but not kept, and counted as lost (the
// store keeps only the latest store.MaxAgentCalls per user anyway).
const maxPendingCalls = 4 * store.MaxAgentCalls

// retryDelay is how long the writer waits before writing again calls the
// store could not take because its disk was full.
const retryDelay = time.Second

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
	owed     int           // of pending, calls a full disk refused, written again
	lost     int64         // calls never kept because too many were waiting
}

// Owed reports how many ended calls wait for the store to have space again
// and how many were lost because too many waited.
func (l *Log) Owed() (owed int, lost int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.owed, l.w.lost
}

// enqueue hands the ended call p to the writer, starting it if needed.
func (l *Log) enqueue(p pending) {
	l.mu.Lock()
	w := &l.w
	if len(w.pending) >= maxPendingCalls {
		w.lost++
		lost := w.lost
		l.mu.Unlock()
		l.logError("log agent call", "user", p.user, "err", "too many calls waiting for the store", "lost", lost)
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
// activityBatchDelay (or until hurry) before each batch. A batch a full
// disk refused is shown as it is, kept first in line and written again
// after retryDelay.
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
		owed := err != nil && store.DiskFull(err)
		if err != nil {
			l.logError("log agent calls", "calls", len(calls), "kept to write again", owed, "err", err)
		}
		for i, p := range batch {
			switch {
			case owed:
				p.shown(p.call)
				batch[i].shown = func(wire.AgentCall) {} // shown once
			case err != nil:
				p.shown(p.call)
			default:
				p.shown(wireCall(out[i]))
			}
		}
		l.mu.Lock()
		l.w.owed = 0
		if owed {
			l.requeueLocked(batch)
			t.Reset(retryDelay)
		}
		l.mu.Unlock()
		close(done)
	}
}

// requeueLocked puts batch, refused by a full disk, before what is pending,
// dropping and counting as lost the oldest beyond maxPendingCalls.
func (l *Log) requeueLocked(batch []pending) {
	w := &l.w
	all := append(batch, w.pending...)
	if over := len(all) - maxPendingCalls; over > 0 {
		all = all[over:]
		w.lost += int64(over)
		l.logError("log agent calls", "err", "too many calls waiting for the store", "lost", w.lost)
	}
	w.pending = all
	w.owed = len(all)
	if w.written == nil {
		w.written = make(chan struct{})
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
