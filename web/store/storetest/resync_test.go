package storetest_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

func never(store.View) bool { return false }

// gap sends a delta that skips seq 2 to the newest subscription of r.
func gap(t *testing.T, r *fakeRelay) *fakeSub {
	sub := r.last()
	sub.queue(t, frame(t, wire.TypeDelta, 3, wire.Delta{}))
	return sub
}

func TestGapFailsTheWaitAtOnce(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	rec.run(func() {
		d := storetest.Connect(rec, r.config())
		gap(t, r)
		d.Until("something that never comes", never)
	})
	rec.end()
	got := rec.failed()
	if !strings.Contains(got, "resynced") || !strings.Contains(got, "delta frame with seq 3") || !strings.Contains(got, "reached seq 1") {
		t.Fatalf("reported %q, want the resync after delta 3 on a stream at seq 1", got)
	}
	if strings.Contains(got, "never comes") || strings.Count(got, "resynced") != 1 {
		t.Errorf("reported %q, want the resync once and no timeout", got)
	}
}

func TestGapAfterTheLastWaitFailsTheTestAtItsEnd(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	var sub *fakeSub
	rec.run(func() {
		storetest.Connect(rec, r.config())
		sub = gap(t, r)
	})
	sub.closed(t) // the client gave up on the socket
	if got := rec.failed(); got != "" {
		t.Fatalf("reported %q before the test's end", got)
	}
	rec.end()
	if got := rec.failed(); !strings.Contains(got, "resynced") {
		t.Fatalf("reported %q at the end, want the resync", got)
	}
}

func TestUnreadableFrameFailsTheTest(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	rec.run(func() {
		d := storetest.Connect(rec, r.config())
		r.last().raw(`{"v":1,"type":`)
		d.Until("something that never comes", never)
	})
	rec.end()
	if got := rec.failed(); !strings.Contains(got, "cannot read") || !strings.Contains(got, `{\"v\":1,\"type\":`) {
		t.Fatalf("reported %q, want the unreadable frame", got)
	}
}

func TestExpectedResyncPasses(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	rec.run(func() {
		d := storetest.Connect(rec, r.config())
		d.ExpectResync()
		gap(t, r)
		d.Until("live on a second socket", func(v store.View) bool { return storetest.Live(v) && r.helloCount() == 2 })
		if h := d.Hellos(); len(h) != 2 || h[1] != (wire.Hello{}) {
			t.Errorf("hellos %+v, want a second one asking for a fresh snapshot", h)
		}
	})
	rec.end()
	if got := rec.failed(); got != "" {
		t.Fatalf("reported %q for an expected resync", got)
	}
}

func TestExpectedResyncThatNeverCameFails(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	rec.run(func() {
		storetest.Connect(rec, r.config()).ExpectResync()
	})
	rec.end()
	if got := rec.failed(); !strings.Contains(got, "expected a resync") {
		t.Fatalf("reported %q, want the missing resync", got)
	}
}
