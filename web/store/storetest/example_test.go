package storetest_test

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

// relay stands for a relay session: it sends its snapshot, with server s1
// still connecting, then the delta that makes s1 ready.
type relay struct {
	outbox chan []byte
	done   chan struct{}
}

func (r *relay) Outbox() <-chan []byte                 { return r.outbox }
func (r *relay) Done() <-chan struct{}                 { return r.done }
func (r *relay) CloseStatus() (wire.CloseCode, string) { return 0, "" }
func (r *relay) HandleOp(wire.Frame)                   {}
func (r *relay) Close()                                { close(r.done) }

func subscribe(wire.Hello) storetest.Subscription {
	r := &relay{outbox: make(chan []byte, 3), done: make(chan struct{})}
	srv := wire.Server{ID: "s1", Name: "docs", State: wire.StateConnecting}
	r.send(wire.TypeSnapshot, 1, wire.Snapshot{Epoch: "e1", Servers: []wire.Server{srv}})
	r.send(wire.TypeSynced, 1, nil)
	srv.State = wire.StateReady
	meta, _ := json.Marshal(srv.Meta())
	r.send(wire.TypeDelta, 2, wire.Delta{Changes: []wire.Change{{Kind: wire.KindServer, Server: "s1", Key: "s1", Value: meta}}})
	return r
}

func (r *relay) send(typ wire.FrameType, seq uint64, data any) {
	f, _ := wire.NewFrame(typ, data)
	f.Seq = seq
	b, _ := wire.Encode(f)
	r.outbox <- b
}

// serverBecomesReady is a test: t is its *testing.T.
func serverBecomesReady(t storetest.TB) {
	d := storetest.Connect(t, storetest.Config{Dial: storetest.InProcess(subscribe)})
	v := d.Until("docs ready", func(v store.View) bool {
		s := v.Snapshot.ServerByID("s1")
		return s != nil && s.State == wire.StateReady
	})
	fmt.Println(v.Snapshot.Servers[0].Name, v.Snapshot.Servers[0].State)
}

// Example connects a dashboard to a relay in the same process and waits
// until a server is ready. An example has no *testing.T: a stand-in
// takes its place.
func Example() {
	t := &exampleT{}
	serverBecomesReady(t)
	t.end()
	// Output: docs ready
}

// exampleT stands in for a *testing.T.
type exampleT struct{ cleanups []func() }

func (t *exampleT) Helper()                           {}
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }

func (t *exampleT) end() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
