package storetest

import (
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// DefaultTimeout bounds each wait of a Dashboard whose Config sets none.
const DefaultTimeout = 10 * time.Second

// inProcessURL is the address a client dials when its Config names none;
// [InProcess] ignores it.
const inProcessURL = "ws://relay.test/ws"

// TB is the part of testing.TB a Dashboard reports to; every testing.TB is one.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Config says how a [Dashboard] connects.
type Config struct {
	// Dial opens the client's sockets: [InProcess] or [WebSocket].
	Dial store.Dialer
	// URL is the relay's WebSocket address, for [WebSocket].
	URL string
	// Token, if set, is the client's store.Config.Token: the token an
	// embedded dashboard sends in an auth frame.
	Token func() string
	// Timeout bounds each wait; DefaultTimeout when zero.
	Timeout time.Duration
}

// Dashboard is the dashboard's client store connected for a test. The
// store.Client methods work as in the dashboard; the Dashboard's own
// methods wait, and fail the test with t.Fatalf when what they wait for
// does not come in time, so they belong on the test's goroutine. The client
// reconnects by itself, with the dashboard's delays, when its socket drops.
type Dashboard struct {
	*store.Client
	t TB
	w *watch
}

// Start returns a started dashboard without waiting for it to connect. The
// test's cleanup closes it, and fails the test for a resync not reported yet.
func Start(t TB, cfg Config) *Dashboard {
	t.Helper()
	if cfg.Dial == nil {
		t.Fatalf("storetest: Config.Dial is nil")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.URL == "" {
		cfg.URL = inProcessURL
	}
	w := newWatch(cfg.Timeout)
	c := store.New(store.Config{URL: cfg.URL, Dial: w.dialer(cfg.Dial), AfterFunc: w.after, OnChange: w.signal, Token: cfg.Token})
	d := &Dashboard{Client: c, t: t, w: w}
	t.Cleanup(d.finish)
	w.dialing(c.Start)
	return d
}

// Connect is [Start], then waits until the dashboard is [Live].
func Connect(t TB, cfg Config) *Dashboard {
	t.Helper()
	d := Start(t, cfg)
	d.Until("live", Live)
	return d
}

// Live reports whether the client is live: it applied the relay's state
// and the relay said it is in sync. A condition for [Dashboard.Until].
func Live(v store.View) bool { return v.Status == store.StatusLive }

// For returns the same dashboard reporting to t, for a subtest.
func (d *Dashboard) For(t TB) *Dashboard {
	return &Dashboard{Client: d.Client, t: t, w: d.w}
}

// Reauth is store.Client.Reauth; the socket it may open is watched as the others.
func (d *Dashboard) Reauth() { d.w.dialing(d.Client.Reauth) }

// ExpectResync says the test expects the client to resync (a delta out of
// sequence, an unreadable frame): resyncs no longer fail the test, and the
// test fails at its end if there was none.
func (d *Dashboard) ExpectResync() { d.w.note(func() { d.w.expect = true }) }

// Hellos returns the hellos the client sent, one per socket, oldest first:
// a resuming socket's names the epoch and sequence number applied last.
func (d *Dashboard) Hellos() []wire.Hello {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	return slices.Clone(d.w.hellos)
}

// Drop ends the dashboard's socket as a network failure would (an
// [InProcess] one from the relay's side: its subscription closes), and
// waits until the client is live again on a new socket: the client resumes
// from the state it applied, after its usual delay.
func (d *Dashboard) Drop() {
	d.t.Helper()
	s := d.w.last()
	var dr dropper
	if s != nil {
		dr, _ = s.inner.(dropper)
	}
	if dr == nil {
		d.t.Fatalf("storetest: Drop needs an open socket of InProcess or WebSocket")
		return
	}
	n := d.w.count()
	dr.drop()
	d.Until("live again on a new socket", func(v store.View) bool { return Live(v) && d.w.count() > n })
}

// Close closes the dashboard as a tab going away: its socket closes and it
// no longer reconnects. The test's cleanup closes it too.
func (d *Dashboard) Close() { d.w.close() }

// check fails the test at once for a resync not reported yet.
func (d *Dashboard) check() {
	d.t.Helper()
	if faults := d.w.unreported(); len(faults) > 0 {
		d.t.Fatalf("storetest: %s", strings.Join(faults, "; "))
	}
}

// finish closes the dashboard at the end of the test and reports what the
// test did not see: resyncs, or the absence of the one it expected.
func (d *Dashboard) finish() {
	d.t.Helper()
	d.w.close()
	for _, f := range d.w.unreported() {
		d.t.Errorf("storetest: %s", f)
	}
	d.w.mu.Lock()
	missing := d.w.expect && len(d.w.faults) == 0
	d.w.mu.Unlock()
	if missing {
		d.t.Errorf("storetest: the test expected a resync and the client never resynced")
	}
}
