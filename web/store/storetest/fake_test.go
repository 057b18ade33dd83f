package storetest_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

// fakeRelay is a relay session in miniature: a hello naming its epoch and
// sequence number gets synced, any other its snapshot and synced; ops are
// answered by answer; the test sends frames to the newest subscription.
type fakeRelay struct {
	t      *testing.T
	answer func(op wire.Frame) wire.Frame // nil: an empty result

	mu     sync.Mutex
	snap   wire.Snapshot
	seq    uint64
	subs   []*fakeSub
	hellos []wire.Hello
}

func newFakeRelay(t *testing.T) *fakeRelay {
	return &fakeRelay{t: t, seq: 1, snap: wire.Snapshot{Epoch: "e1", User: "ada",
		Servers: []wire.Server{{ID: "s1", Name: "docs", State: wire.StateConnecting}}}}
}

// config connects a dashboard to r in process.
func (r *fakeRelay) config() storetest.Config {
	return storetest.Config{Dial: storetest.InProcess(r.subscribe)}
}

func (r *fakeRelay) subscribe(h wire.Hello) storetest.Subscription {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &fakeSub{r: r, outbox: make(chan []byte, 64), done: make(chan struct{}), ops: make(chan wire.Frame, 64)}
	r.subs = append(r.subs, s)
	r.hellos = append(r.hellos, h)
	if h.Epoch != r.snap.Epoch || h.Seq != r.seq {
		s.queue(r.t, frame(r.t, wire.TypeSnapshot, r.seq, r.snap))
	}
	s.queue(r.t, wire.Frame{V: wire.Version, Type: wire.TypeSynced, Seq: r.seq})
	return s
}

// ready makes server s1 ready and sends the delta to every subscription.
func (r *fakeRelay) ready() {
	r.mu.Lock()
	defer r.mu.Unlock()
	srv := r.snap.Servers[0]
	srv.State = wire.StateReady
	r.snap.Servers = []wire.Server{srv}
	r.seq++
	b, err := json.Marshal(srv.Meta())
	if err != nil { // on the test's goroutine or another: Error, not Fatal
		r.t.Error(err)
		return
	}
	d := wire.Delta{Changes: []wire.Change{{Kind: wire.KindServer, Server: srv.ID, Key: srv.ID, Value: b}}}
	for _, s := range r.subs {
		s.queue(r.t, frame(r.t, wire.TypeDelta, r.seq, d))
	}
}

// last returns the newest subscription.
func (r *fakeRelay) last() *fakeSub {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.subs) == 0 {
		r.t.Fatal("nobody subscribed")
	}
	return r.subs[len(r.subs)-1]
}

func (r *fakeRelay) helloCount() int { return len(r.hellosSeen()) }

// hellosSeen returns the hellos subscriptions were made with.
func (r *fakeRelay) hellosSeen() []wire.Hello {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hellos)
}

// fakeSub is one subscription of a fakeRelay.
type fakeSub struct {
	r      *fakeRelay
	outbox chan []byte
	done   chan struct{}
	ops    chan wire.Frame // every op received

	mu   sync.Mutex
	code wire.CloseCode
}

func (s *fakeSub) Outbox() <-chan []byte { return s.outbox }
func (s *fakeSub) Done() <-chan struct{} { return s.done }

func (s *fakeSub) CloseStatus() (wire.CloseCode, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, ""
}

func (s *fakeSub) HandleOp(f wire.Frame) {
	s.ops <- f
	if s.r.answer != nil {
		s.queue(s.r.t, s.r.answer(f))
		return
	}
	reply, err := wire.Result(f.ID, struct{}{})
	if err != nil {
		s.r.t.Error(err)
		return
	}
	s.queue(s.r.t, reply)
}

func (s *fakeSub) Close() { s.closeWith(0) }

func (s *fakeSub) closeWith(code wire.CloseCode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
	default:
		s.code = code
		close(s.done)
	}
}

// queue sends f to the client.
func (s *fakeSub) queue(t *testing.T, f wire.Frame) {
	b, err := wire.Encode(f)
	if err != nil {
		t.Error(err)
		return
	}
	s.raw(string(b))
}

// raw sends text to the client as it is.
func (s *fakeSub) raw(text string) { s.outbox <- []byte(text) }

// closed waits until the subscription was closed.
func (s *fakeSub) closed(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription was not closed")
	}
}

func frame(t *testing.T, typ wire.FrameType, seq uint64, v any) wire.Frame {
	f, err := wire.NewFrame(typ, v)
	if err != nil { // callers run on other goroutines too: Error, not Fatal
		t.Error(err)
	}
	f.Seq = seq
	return f
}

// recorder is a storetest.TB that records what a Dashboard reports.
type recorder struct {
	mu       sync.Mutex
	failures []string
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// Fatalf records the failure and ends the goroutine, as testing.T's does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// run runs body as a test would, on its own goroutine; a Fatalf ends it.
func (r *recorder) run(body func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	<-done
}

// end runs the cleanups, newest first, as a test's end does.
func (r *recorder) end() {
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		r.run(cleanups[i])
	}
}

// failed returns the failures recorded, joined.
func (r *recorder) failed() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.failures, "\n")
}
