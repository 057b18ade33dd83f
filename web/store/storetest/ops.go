package storetest

import (
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Pending is an op sent and perhaps not answered yet.
type Pending struct {
	// ID is the op's id.
	ID string

	d     *Dashboard
	op    wire.OpName
	reply chan store.Reply
	got   *store.Reply
}

// Send waits until the dashboard is live, sends op with args through
// store.Client.Do and returns without waiting for the answer.
func (d *Dashboard) Send(op wire.OpName, args any) *Pending {
	d.t.Helper()
	d.Until("live, to send "+string(op), Live)
	p := &Pending{d: d, op: op, reply: make(chan store.Reply, 1)}
	p.ID = d.Do(op, args, func(r store.Reply) { p.reply <- r })
	return p
}

// Wait waits for the op's answer and returns it: Data on success, Err on
// failure, including the client's own errors (store.CodeOffline,
// store.CodeConnectionLost). It fails the test when none comes in time, or
// when the client resynced meanwhile. It belongs on the test's goroutine;
// a second call returns the same answer.
func (p *Pending) Wait() store.Reply {
	d := p.d
	d.t.Helper()
	if p.got != nil {
		return *p.got
	}
	deadline := time.NewTimer(d.w.timeout)
	defer deadline.Stop()
	select {
	case r := <-p.reply:
		p.got = &r
	case <-deadline.C:
		d.check()
		d.t.Fatalf("storetest: no answer to op %s (%s) within %v; the dashboard shows %s", p.op, p.ID, d.w.timeout, d.summary(d.View()))
		return store.Reply{}
	}
	d.check()
	return *p.got
}

// Op sends op with args and waits for its answer; see [Dashboard.Send] and
// [Pending.Wait].
func (d *Dashboard) Op(op wire.OpName, args any) store.Reply {
	d.t.Helper()
	return d.Send(op, args).Wait()
}

// Result sends op with args, fails the test unless it succeeds, and decodes
// its result into out (unless out is nil).
func (d *Dashboard) Result(op wire.OpName, args any, out any) {
	d.t.Helper()
	r := d.Op(op, args)
	if r.Err != nil {
		d.t.Fatalf("storetest: op %s failed: %s: %s", op, r.Err.Code, r.Err.Message)
		return
	}
	if out == nil {
		return
	}
	if err := json.Unmarshal(r.Data, out); err != nil {
		d.t.Fatalf("storetest: op %s: result %s does not decode: %v", op, r.Data, err)
	}
}
