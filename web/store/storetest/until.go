package storetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/web/store"
)

// Until waits until ok holds for the client's view and returns that view.
// It checks the view again at every change the client signals
// (store.Config.OnChange); when the timeout passes first, or the client
// resynced, it fails the test naming what and summing up the view.
func (d *Dashboard) Until(what string, ok func(store.View) bool) store.View {
	d.t.Helper()
	deadline := time.NewTimer(d.w.timeout)
	defer deadline.Stop()
	for {
		changed := d.w.changes()
		v := d.View()
		d.check()
		if ok(v) {
			return v
		}
		select {
		case <-changed:
		case <-deadline.C:
			d.t.Fatalf("storetest: not %s within %v; the dashboard shows %s", what, d.w.timeout, d.summary(v))
			return v
		}
	}
}

// UntilSeq waits until the client applied the relay's state numbered seq,
// or a later one of the same epoch, and returns its view then. A relay
// numbers each state it sends (a relay session's Snapshot returns the state
// with its number): a test compares that state with the view, the mirror
// the client built from the relay's snapshot and deltas. It fails the test
// as Until does.
func (d *Dashboard) UntilSeq(seq uint64) store.View {
	d.t.Helper()
	d.Until(fmt.Sprintf("at seq %d", seq), func(store.View) bool { return d.w.appliedSeq() >= seq })
	return d.View() // taken after: the state numbered seq or a later one
}

// maxListed is how many servers, asks or calls a summary names.
const maxListed = 5

// summary sums up v and the client's sockets in a line.
func (d *Dashboard) summary(v store.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s", v.Status)
	if !v.Loaded {
		b.WriteString(", no state yet")
	} else {
		fmt.Fprintf(&b, ", state seq %d", d.w.appliedSeq())
	}
	var servers []string
	for _, s := range v.Snapshot.Servers {
		servers = append(servers, fmt.Sprintf("%s %q %s", s.ID, s.Name, s.State))
	}
	list(&b, "servers", servers)
	var asks []string
	for _, a := range v.Snapshot.Asks {
		asks = append(asks, fmt.Sprintf("%s %s %s", a.ID, a.Kind, a.State))
	}
	list(&b, "asks", asks)
	var calls []string
	for _, c := range v.Calls {
		calls = append(calls, fmt.Sprintf("%s %s %s", c.ID, c.Name, c.Status))
	}
	list(&b, "calls", calls)
	d.w.mu.Lock()
	n, dialErr := len(d.w.sockets), d.w.dialErr
	d.w.mu.Unlock()
	fmt.Fprintf(&b, "; %d sockets", n)
	if s := d.w.last(); s != nil && s.closeCode() != 0 {
		fmt.Fprintf(&b, ", the last closed with %d", s.closeCode())
	}
	if dialErr != nil {
		fmt.Fprintf(&b, ", last dial failure: %v", dialErr)
	}
	return b.String()
}

// list writes what's items, the first maxListed of them.
func list(b *strings.Builder, what string, items []string) {
	fmt.Fprintf(b, "; %d %s", len(items), what)
	if len(items) == 0 {
		return
	}
	more := ""
	if len(items) > maxListed {
		items, more = items[:maxListed], ", ..."
	}
	fmt.Fprintf(b, " (%s%s)", strings.Join(items, ", "), more)
}
