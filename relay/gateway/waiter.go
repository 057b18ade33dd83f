package gateway

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// msgWaiting is the progress message an agent gets while a person is asked.
const msgWaiting = "waiting for a person in Switchboard"

// waiter follows one agent operation: it forwards the server's progress to
// the agent, hears of the asks the operation raises, and while one is out
// tells the agent, by progress notifications every interval, that the
// call waits for a person (so that it does not time out). Progress values
// sent to the agent only increase: a value not above the last one sent is
// raised just above it.
type waiter struct {
	ctx      context.Context
	ss       *mcp.ServerSession
	token    any // the agent's progress token; nil: no progress wanted
	interval time.Duration

	mu      sync.Mutex
	last    float64
	sent    bool // a progress notification went out
	out     int  // asks shown and not yet settled
	asked   bool // an ask was shown
	stopped bool
	ticking chan struct{} // closed to stop the ticker; nil when not ticking
	tickers sync.WaitGroup
}

func newWaiter(ctx context.Context, ss *mcp.ServerSession, token any, interval time.Duration) *waiter {
	return &waiter{ctx: ctx, ss: ss, token: token, interval: interval}
}

// note hears of an ask; see [session.Agent].
func (w *waiter) note(n session.AskNote) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n == session.AskShown {
		w.out++
		w.asked = true
		if w.token != nil && w.ticking == nil && !w.stopped && w.interval > 0 {
			w.ticking = make(chan struct{})
			w.tickers.Add(1)
			go w.tick(w.ticking)
		}
		return
	}
	// Settled or timed out: once no ask is out, the call waits no more.
	if w.out--; w.out <= 0 && w.ticking != nil {
		close(w.ticking)
		w.ticking = nil
	}
}

// tick tells the agent it waits, now and every interval, until stop.
func (w *waiter) tick(stop chan struct{}) {
	defer w.tickers.Done()
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		w.sendWaiting(stop)
		select {
		case <-stop:
			return
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// forward passes one progress notification of the server to the agent.
func (w *waiter) forward(p wire.Progress) { w.send(p.Progress, p.Total, p.Message) }

// sendWaiting tells the agent it waits, unless the ticker stop was stopped.
func (w *waiter) sendWaiting(stop chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ticking == stop {
		w.sendLocked(w.nextStepLocked(), 0, msgWaiting)
	}
}

// send notifies the agent of progress.
func (w *waiter) send(progress, total float64, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sendLocked(progress, total, msg)
}

func (w *waiter) sendLocked(progress, total float64, msg string) {
	if w.stopped {
		return
	}
	if w.sent && progress <= w.last {
		progress, total = w.nextStepLocked(), 0
	}
	w.last, w.sent = progress, true
	w.ss.NotifyProgress(w.ctx, &mcp.ProgressNotificationParams{ProgressToken: w.token, Progress: progress, Total: total, Message: msg})
}

// stop ends the waiter: nothing is sent after it returns.
func (w *waiter) stop() {
	w.mu.Lock()
	w.stopped = true
	if w.ticking != nil {
		close(w.ticking)
		w.ticking = nil
	}
	w.mu.Unlock()
	w.tickers.Wait()
}

// askedPerson reports whether a person was asked during the call.
func (w *waiter) askedPerson() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked
}

// nextStepLocked is the next whole step of progress: 1, or the first whole
// number above what the agent last heard. Waiting is told in such steps,
// and a server's progress that the steps overtook goes on from them.
func (w *waiter) nextStepLocked() float64 {
	if !w.sent {
		return 1
	}
	return math.Floor(w.last) + 1
}
