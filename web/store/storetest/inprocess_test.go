package storetest_test

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

func TestInProcessSubscribesWithTheHelloAndDeliversFrames(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, r.config())
	if h := r.hellosSeen(); len(h) != 1 || h[0] != (wire.Hello{}) {
		t.Fatalf("subscribed with %+v, want one empty hello", h)
	}
	if v := d.View(); v.Snapshot.User != "ada" || len(v.Snapshot.Servers) != 1 {
		t.Fatalf("state %+v, want the relay's snapshot", v.Snapshot)
	}
	r.ready()
	d.Until("docs ready", docsReady)
}

func TestInProcessRoutesOpsAndTheirAnswers(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, r.config())
	p := d.Send(wire.OpRetryServer, wire.ServerArgs{Server: "s1"})
	op := <-r.last().ops
	var args wire.ServerArgs
	if op.Type != wire.TypeOp || op.Op != wire.OpRetryServer || op.ID != p.ID || json.Unmarshal(op.Data, &args) != nil || args.Server != "s1" {
		t.Fatalf("the relay got %+v, want op %s %s for s1", op, wire.OpRetryServer, p.ID)
	}
	if rep := p.Wait(); rep.Err != nil || string(rep.Data) != "{}" {
		t.Fatalf("reply %+v, want the relay's result", rep)
	}

	r.answer = func(f wire.Frame) wire.Frame {
		return wire.ErrorFrame(f.ID, wire.NewError(wire.CodeNotFound, "no such server"))
	}
	if rep := d.Op(wire.OpRetryServer, wire.ServerArgs{Server: "nope"}); rep.Err == nil || rep.Err.Code != wire.CodeNotFound {
		t.Fatalf("reply %+v, want the relay's not_found", rep)
	}
}

func TestInProcessDropResumesFromTheLastState(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, r.config())
	r.ready()
	d.Until("docs ready", docsReady)
	first := r.last()
	d.Drop()
	first.closed(t)
	want := wire.Hello{Epoch: "e1", Seq: 2}
	if h := d.Hellos(); len(h) != 2 || h[1] != want {
		t.Fatalf("hellos %+v, want a second one resuming from %+v", h, want)
	}
	if h := r.hellosSeen(); len(h) != 2 || h[1] != want {
		t.Fatalf("the relay got hellos %+v", h)
	}
	if !docsReady(d.View()) {
		t.Errorf("after resuming the dashboard shows %+v", d.View().Snapshot.Servers)
	}
}

func TestInProcessCloseCodeReachesTheClient(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, r.config())
	r.last().closeWith(wire.CloseUnauthorized)
	d.Until("signed out", func(v store.View) bool { return v.Status == store.StatusSignedOut })
}
