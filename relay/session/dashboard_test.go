package session

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

// waitFor bounds every wait of a dashboard.
const waitFor = 5 * time.Second

// dashboard is an open dashboard: the dashboard's own client store,
// attached to a session as the relay's socket attaches it. It mirrors the
// user's state from the session's snapshot and deltas; a resync fails the
// test.
type dashboard struct {
	*storetest.Dashboard
	t testing.TB
}

// openDashboard attaches a dashboard to s and waits until it is live.
func openDashboard(t testing.TB, s *Session) *dashboard {
	t.Helper()
	subscribe := func(h wire.Hello) storetest.Subscription { return s.Subscribe(h) }
	return &dashboard{storetest.Connect(t, storetest.Config{Dial: storetest.InProcess(subscribe), Timeout: waitFor}), t}
}

// state returns the state the dashboard shows.
func (d *dashboard) state() wire.Snapshot { return d.View().Snapshot }

// until waits until the state the dashboard shows satisfies ok, and returns it.
func (d *dashboard) until(what string, ok func(wire.Snapshot) bool) wire.Snapshot {
	d.t.Helper()
	return d.Until(what, func(v store.View) bool { return ok(v.Snapshot) }).Snapshot
}

// at waits until the dashboard applied the session's state numbered seq
// (as Session.Snapshot numbers it), and returns the state it shows: that
// one, or a later one.
func (d *dashboard) at(seq uint64) wire.Snapshot {
	d.t.Helper()
	return d.UntilSeq(seq).Snapshot
}

// asks waits until n asks are shown and returns them.
func (d *dashboard) asks(n int) []wire.Ask {
	d.t.Helper()
	return d.until(strconv.Itoa(n)+" asks", func(s wire.Snapshot) bool { return len(s.Asks) == n }).Asks
}

// refused reports whether an op's answer is an error with code.
func refused(r store.Reply, code wire.Code) bool { return r.Err != nil && r.Err.Code == code }

// said describes an op's answer for a failure message.
func said(r store.Reply) string {
	if r.Err != nil {
		return fmt.Sprintf("error %+v", r.Err)
	}
	return "result " + string(r.Data)
}
