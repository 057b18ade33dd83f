package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestFirstHelloAsksForASnapshot(t *testing.T) {
	r, c := newRelay(t)
	if got := c.View().Status; got != StatusConnecting {
		t.Fatalf("status before start = %q, want connecting", got)
	}
	c.Start()
	s := r.last()
	if s.url != "ws://relay.test/ws" {
		t.Errorf("dialed %q", s.url)
	}
	s.open()
	f := s.lastFrame()
	if h := helloOf(t, f); h != (wire.Hello{}) {
		t.Errorf("first hello = %+v, want empty", h)
	}
	if string(f.Data) != "{}" {
		t.Errorf("first hello data = %s, want {}", f.Data)
	}
	if got := c.View().Status; got != StatusConnecting {
		t.Errorf("status after open = %q, want connecting until synced", got)
	}
	s.snapshot(3, twoServers())
	s.synced(3)
	if got := c.View().Status; got != StatusLive {
		t.Errorf("status after synced = %q, want live", got)
	}
}

func TestSyncedAtAnotherSequenceResyncs(t *testing.T) {
	r, c := newRelay(t)
	c.Start()
	s := r.last()
	s.open()
	s.snapshot(3, twoServers())
	s.synced(4)
	if s.closed == 0 || c.View().Status == StatusLive {
		t.Fatalf("synced at seq 4 after snapshot 3: closed=%d status=%q", s.closed, c.View().Status)
	}
}

func TestSnapshotThenDeltasUpdateTheView(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 5, twoServers())
	v := c.View()
	if !v.Loaded || v.Snapshot.User != "ada" || len(v.Snapshot.Servers) != 2 {
		t.Fatalf("view after snapshot = %+v", v)
	}

	s.delta(6, toolChange("s2", wire.Tool{Name: "search", Description: "finds"}))
	ready := twoServers().Servers[1]
	ready.State = wire.StateReady
	s.delta(7, serverChange(ready))

	w := c.View()
	beta := w.Snapshot.ServerByID("s2")
	if beta == nil || beta.State != wire.StateReady || len(beta.Tools) != 1 || beta.Tools[0].Name != "search" {
		t.Fatalf("beta after deltas = %+v", beta)
	}
	if old := v.Snapshot.ServerByID("s2"); old.State != wire.StateConnecting || len(old.Tools) != 0 {
		t.Errorf("an earlier view changed under the views' feet: %+v", old)
	}
	if r.dials() != 1 {
		t.Errorf("in-order deltas caused %d dials", r.dials())
	}
}

func TestDeltaThatReplacesAToolLeavesEarlierViewsAlone(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	before := c.View()
	s.delta(2, toolChange("s1", wire.Tool{Name: "echo", Description: "now documented"}))
	if got := before.Snapshot.Servers[0].Tools[0].Description; got != "" {
		t.Errorf("earlier view's tool description = %q, want it unchanged", got)
	}
	if got := c.View().Snapshot.Servers[0].Tools[0].Description; got != "now documented" {
		t.Errorf("tool description = %q", got)
	}
}

func TestDeltaGapReconnectsAskingForASnapshot(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 5, twoServers())
	s.delta(7, toolChange("s1", wire.Tool{Name: "late"}))

	if s.closed != CloseNormal {
		t.Errorf("socket with a gap closed with %d, want %d", s.closed, CloseNormal)
	}
	if got := c.View().Status; got != StatusReconnecting {
		t.Errorf("status = %q, want reconnecting", got)
	}
	if len(c.View().Snapshot.Servers[0].Tools) != 2 {
		t.Error("the out-of-order delta was applied")
	}
	r.fire()
	s2 := r.last()
	if s2 == s {
		t.Fatal("no new socket after the gap")
	}
	s2.open()
	if h := helloOf(t, s2.lastFrame()); h != (wire.Hello{}) {
		t.Errorf("hello after a gap = %+v, want empty (snapshot)", h)
	}
	// Events of the abandoned socket no longer count.
	s.delta(6, toolChange("s1", wire.Tool{Name: "ghost"}))
	if len(c.View().Snapshot.Servers[0].Tools) != 2 {
		t.Error("a delta from the abandoned socket was applied")
	}
}

func TestDeltaForAnUnknownServerResyncs(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	s.delta(2, toolChange("nope", wire.Tool{Name: "x"}))
	if s.closed == 0 {
		t.Fatal("socket kept after a delta that does not apply")
	}
	r.fire()
	r.last().open()
	if h := helloOf(t, r.last().lastFrame()); h != (wire.Hello{}) {
		t.Errorf("hello = %+v, want empty", h)
	}
}

func TestDeltaBeforeAnySnapshotResyncs(t *testing.T) {
	r, c := newRelay(t)
	c.Start()
	s := r.last()
	s.open()
	s.delta(1, toolChange("s1", wire.Tool{Name: "x"}))
	if s.closed == 0 || c.View().Loaded {
		t.Errorf("delta without a base: closed=%d loaded=%v", s.closed, c.View().Loaded)
	}
}

func TestReconnectHelloNamesTheLastAppliedState(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 5, twoServers())
	s.delta(6, toolChange("s1", wire.Tool{Name: "x"}))
	s.drop(CloseAbnormal)
	if got := c.View().Status; got != StatusReconnecting {
		t.Errorf("status after drop = %q, want reconnecting", got)
	}
	if d := r.fire(); d != initialBackoff {
		t.Errorf("first reconnection after %v, want %v", d, initialBackoff)
	}
	r.last().open()
	if h := helloOf(t, r.last().lastFrame()); h != (wire.Hello{Epoch: "e1", Seq: 6}) {
		t.Errorf("hello = %+v, want epoch e1 seq 6", h)
	}
	if !c.View().Loaded || len(c.View().Snapshot.Servers) != 2 {
		t.Error("the mirror was lost across the reconnection")
	}
}

func TestSnapshotWithANewEpochReplacesEverything(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 5, twoServers())
	s.drop(wire.CloseShuttingDown)
	r.fire()
	s2 := r.last()
	s2.open()
	s2.snapshot(1, wire.Snapshot{Epoch: "e2", User: "ada", Servers: []wire.Server{{ID: "s9", Name: "gamma"}}})
	v := c.View()
	if v.Snapshot.Epoch != "e2" || len(v.Snapshot.Servers) != 1 || v.Snapshot.Servers[0].ID != "s9" {
		t.Fatalf("view = %+v", v.Snapshot)
	}
	s2.delta(2, toolChange("s9", wire.Tool{Name: "t"}))
	if len(c.View().Snapshot.Servers[0].Tools) != 1 {
		t.Error("delta after the new epoch's snapshot was not applied")
	}
}

func TestReconnectDelayDoublesUpToFiveSecondsAndResets(t *testing.T) {
	r, c := newRelay(t)
	c.Start()
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i, w := range want {
		r.last().drop(CloseAbnormal)
		if d := r.fire(); d != w {
			t.Errorf("retry %d after %v, want %v", i+1, d, w)
		}
	}
	if got := c.View().Status; got != StatusConnecting {
		t.Errorf("status while never connected = %q, want connecting", got)
	}
	s := r.last()
	s.open()
	s.snapshot(1, twoServers())
	s.drop(CloseAbnormal)
	if d := r.fire(); d != initialBackoff {
		t.Errorf("retry after a healthy stream waited %v, want %v", d, initialBackoff)
	}
}

func TestUnauthorizedCloseSignsOutAndStopsReconnecting(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, twoServers())
	s.drop(wire.CloseUnauthorized)
	if got := c.View().Status; got != StatusSignedOut {
		t.Errorf("status = %q, want signed-out", got)
	}
	if n := r.pendingTimers(); n != 0 {
		t.Errorf("%d reconnections scheduled after sign-out", n)
	}
}

func TestSigningOutClearsTheMirror(t *testing.T) {
	r, c := newRelay(t)
	snap := withAsks(formAsk("a1"), urlAsk("a2"))
	snap.Servers[1].State = wire.StateAuthenticating
	s := connect(t, r, c, 1, snap)
	c.CallTool("s1", "slow", json.RawMessage(`{}`))
	c.AnswerAsk("a1", wire.ActionDecline, nil)
	c.Authorize("s2", func() Popup { return &fakePopup{} })
	s.delta(2, askRemoval(urlAsk("a2"))) // leaves a notice
	if v := c.View(); len(v.Calls) == 0 || len(v.Departed) == 0 || len(v.Auth) == 0 || len(v.AskStatus) == 0 {
		t.Fatalf("the setup left nothing to clear: %+v", v)
	}
	s.drop(wire.CloseUnauthorized)
	v := c.View()
	if v.Loaded || v.Snapshot.User != "" || len(v.Snapshot.Servers) != 0 || len(v.Snapshot.Asks) != 0 {
		t.Errorf("signed out, the view still shows loaded=%t user=%q %d servers %d asks",
			v.Loaded, v.Snapshot.User, len(v.Snapshot.Servers), len(v.Snapshot.Asks))
	}
	if len(v.Calls) != 0 || len(v.Departed) != 0 || len(v.Auth) != 0 || len(v.AskStatus) != 0 {
		t.Errorf("signed out, the view keeps %d calls, %d notices, %d authorizations, %d ask states",
			len(v.Calls), len(v.Departed), len(v.Auth), len(v.AskStatus))
	}
}

func TestTooSlowCloseReconnectsForAFreshSnapshot(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 9, twoServers())
	s.drop(wire.CloseTooSlow)
	r.fire()
	r.last().open()
	if h := helloOf(t, r.last().lastFrame()); h != (wire.Hello{}) {
		t.Errorf("hello after too-slow = %+v, want empty", h)
	}
}

func TestChangesAreAnnounced(t *testing.T) {
	r, c := newRelay(t)
	connect(t, r, c, 1, twoServers())
	r.mu.Lock()
	n := r.changes
	r.mu.Unlock()
	if n < 2 { // open, snapshot
		t.Errorf("OnChange called %d times, want at least 2", n)
	}
}
