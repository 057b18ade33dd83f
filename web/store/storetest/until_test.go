package storetest_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

func docsReady(v store.View) bool {
	s := v.Snapshot.ServerByID("s1")
	return s != nil && s.State == wire.StateReady
}

func TestUntilWaitsForTheChange(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, r.config())
	var once sync.Once
	checks := 0
	v := d.Until("docs ready", func(v store.View) bool {
		checks++
		// The change comes only once Until saw the view without it.
		once.Do(func() { go r.ready() })
		return docsReady(v)
	})
	if !docsReady(v) || checks < 2 {
		t.Fatalf("Until returned %+v after %d checks, want docs ready after a change", v.Snapshot.Servers, checks)
	}
}

func TestUntilFailsNamingWhatAndTheView(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	cfg := r.config()
	cfg.Timeout = 50 * time.Millisecond
	rec.run(func() {
		d := storetest.Connect(rec, cfg)
		d.Until("the server gone", never)
		t.Error("Until returned without its condition")
	})
	rec.end()
	got := rec.failed()
	for _, want := range []string{"not the server gone within 50ms", "status live", `s1 "docs" connecting`, "1 sockets"} {
		if !strings.Contains(got, want) {
			t.Errorf("reported %q, want it to say %q", got, want)
		}
	}
}

func TestUntilSeqWaitsUntilTheStateIsApplied(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, r.config())
	if v := d.UntilSeq(1); docsReady(v) {
		t.Fatalf("at seq 1 the dashboard shows %+v, want the snapshot's server connecting", v.Snapshot.Servers)
	}
	go r.ready()
	if v := d.UntilSeq(2); !docsReady(v) {
		t.Fatalf("at seq 2 the dashboard shows %+v, want the delta applied", v.Snapshot.Servers)
	}
}

func TestUntilSeqFailsNamingTheSeqApplied(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	cfg := r.config()
	cfg.Timeout = 50 * time.Millisecond
	rec.run(func() {
		d := storetest.Connect(rec, cfg)
		r.ready()
		d.UntilSeq(2)
		d.UntilSeq(3)
		t.Error("UntilSeq returned before the state it waits for")
	})
	rec.end()
	got := rec.failed()
	for _, want := range []string{"not at seq 3 within 50ms", "state seq 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("reported %q, want it to say %q", got, want)
		}
	}
}
