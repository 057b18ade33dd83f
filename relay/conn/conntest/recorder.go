package conntest

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// WaitFor bounds every wait of a [Recorder].
const WaitFor = 15 * time.Second

// Facts are what a [Recorder] reads of a reported state.
type Facts struct {
	State     wire.ServerState // where the connection is in its life
	Error     string           // why it failed
	AuthError string           // what its OAuth status says went wrong
}

// Recorder collects the states a connection reports, of type S: its
// [Recorder.Report] is the connection's report callback. It never blocks the
// connection (up to 10000 states unread).
type Recorder[S any] struct {
	t     testing.TB
	facts func(S) Facts
	ch    chan S

	mu    sync.Mutex
	all   []S              // every state reported
	last  wire.ServerState // the last lifecycle state
	hooks map[wire.ServerState]func()
}

// NewRecorder returns a recorder of the states of test t, whose facts it
// reads with facts.
func NewRecorder[S any](t testing.TB, facts func(S) Facts) *Recorder[S] {
	return &Recorder[S]{t: t, facts: facts, ch: make(chan S, 10000), hooks: map[wire.ServerState]func(){}}
}

// Report records s, and calls the hook of its lifecycle state (see
// [Recorder.OnEnter]) when the connection enters that state.
func (r *Recorder[S]) Report(s S) {
	state := r.facts(s).State
	r.mu.Lock()
	r.all = append(r.all, s)
	hook := r.hooks[state]
	entered := state != r.last
	r.last = state
	r.mu.Unlock()
	if hook != nil && entered {
		hook()
	}
	r.ch <- s
}

// OnEnter calls fn, on the reporting goroutine, each time the connection
// enters state.
func (r *Recorder[S]) OnEnter(state wire.ServerState, fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks[state] = fn
}

// Await returns the next state not awaited yet that satisfies ok, after
// [WaitFor] failing the test, which it names what.
func (r *Recorder[S]) Await(what string, ok func(S) bool) S {
	r.t.Helper()
	timeout := time.NewTimer(WaitFor)
	defer timeout.Stop()
	for {
		select {
		case s := <-r.ch:
			if ok(s) {
				return s
			}
		case <-timeout.C:
			r.t.Fatalf("no state %s within %v; saw %s", what, WaitFor, r.Summary())
		}
	}
}

// AwaitState returns the next state not awaited yet in lifecycle state.
func (r *Recorder[S]) AwaitState(state wire.ServerState) S {
	r.t.Helper()
	return r.Await(string(state), func(s S) bool { return r.facts(s).State == state })
}

// All returns every state reported so far, in order.
func (r *Recorder[S]) All() []S {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]S(nil), r.all...)
}

// Summary lists the lifecycle states reported, with their errors, for
// failure messages.
func (r *Recorder[S]) Summary() string {
	var b strings.Builder
	for _, s := range r.All() {
		f := r.facts(s)
		b.WriteString(string(f.State))
		if f.Error != "" {
			b.WriteString("(" + f.Error + ")")
		}
		if f.AuthError != "" {
			b.WriteString("[" + f.AuthError + "]")
		}
		b.WriteString(" ")
	}
	return b.String()
}

// AllJSON returns every state reported, as JSON: what a test searches for
// what must never be reported.
func (r *Recorder[S]) AllJSON() string {
	b, _ := json.Marshal(r.All())
	return string(b)
}
