package elicitfixture_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

// relay is one user's session with real connections, wired as the relay
// wires them (relay/service), without the WebSocket.
type relay struct {
	t *testing.T
	m *session.Manager
	s *session.Session
}

func newRelay(t *testing.T, asks broker.Config) *relay {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	m := session.NewManager(session.Config{Store: st, Logger: logger, Asks: asks, Dial: func(d session.Dial, emit func(conn.State)) session.Connection {
		reg := d.Reg
		return conn.Start(conn.Config{
			ID: reg.ID, Name: reg.Name, URL: reg.URL, Logger: logger, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0),
			HealthInterval: 200 * time.Millisecond, RetryMin: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Asker: d.Asker, Modes: d.Modes, Transport: reg.Transport,
		}, emit)
	}})
	t.Cleanup(func() {
		m.Close()
		st.Close()
	})
	return &relay{t: t, m: m, s: m.Session("alice")}
}

// add registers fx under name and waits until it is ready.
func (r *relay) add(fx *elicitfixture.Server, name string) string {
	r.t.Helper()
	res, err := r.s.AddServer(context.Background(), name, fx.URL())
	if err != nil {
		r.t.Fatal(err)
	}
	d := r.open()
	d.until(name+" ready", func() bool {
		srv := d.state.ServerByID(res.ID)
		return srv != nil && srv.State == wire.StateReady
	})
	d.sub.Close()
	return res.ID
}

// dashboard is an open dashboard: it mirrors the state it is sent, as the
// web client's store does, and collects the answers to its ops.
type dashboard struct {
	t       *testing.T
	sub     *session.Subscriber
	state   wire.Snapshot
	seq     uint64
	replies map[string]wire.Frame
	ops     int
}

// open attaches a dashboard and reads its snapshot.
func (r *relay) open() *dashboard {
	r.t.Helper()
	d := r.resume(wire.Hello{})
	d.read()
	return d
}

// resume attaches a dashboard that says what it applied last.
func (r *relay) resume(hello wire.Hello) *dashboard {
	d := &dashboard{t: r.t, sub: r.s.Subscribe(hello), replies: map[string]wire.Frame{}, seq: hello.Seq}
	r.t.Cleanup(d.sub.Close)
	return d
}

// read applies the next frame.
func (d *dashboard) read() {
	d.t.Helper()
	var fr wire.Frame
	select {
	case b := <-d.sub.Outbox():
		var err error
		if fr, err = wire.Decode(b); err != nil {
			d.t.Fatal(err)
		}
	case <-d.sub.Done():
		d.t.Fatal("the dashboard was disconnected")
	case <-time.After(waitFor):
		d.t.Fatalf("no frame within %v; asks %+v", waitFor, d.state.Asks)
	}
	switch fr.Type {
	case wire.TypeSnapshot:
		d.state = wire.Snapshot{}
		if err := json.Unmarshal(fr.Data, &d.state); err != nil {
			d.t.Fatal(err)
		}
		d.seq = fr.Seq
	case wire.TypeDelta:
		if fr.Seq != d.seq+1 {
			d.t.Fatalf("delta %d after %d", fr.Seq, d.seq)
		}
		var delta wire.Delta
		if err := json.Unmarshal(fr.Data, &delta); err != nil {
			d.t.Fatal(err)
		}
		for _, c := range delta.Changes {
			if err := d.state.Apply(c); err != nil {
				d.t.Fatal(err)
			}
		}
		d.seq = fr.Seq
	case wire.TypeResult, wire.TypeError:
		d.replies[fr.ID] = fr
	}
}

// until reads frames until ok holds.
func (d *dashboard) until(what string, ok func() bool) {
	d.t.Helper()
	for !ok() {
		d.read()
	}
}

// asks waits until n asks are shown and returns them.
func (d *dashboard) asks(n int) []wire.Ask {
	d.t.Helper()
	d.until(strconv.Itoa(n)+" asks", func() bool { return len(d.state.Asks) == n })
	return d.state.Asks
}

// send sends an op and returns its id.
func (d *dashboard) send(name wire.OpName, args any) string {
	d.t.Helper()
	d.ops++
	id := string(name) + "-" + strconv.Itoa(d.ops)
	fr, err := wire.Op(id, name, args)
	if err != nil {
		d.t.Fatal(err)
	}
	d.sub.HandleOp(fr)
	return id
}

// reply waits for the answer to op id.
func (d *dashboard) reply(id string) wire.Frame {
	d.t.Helper()
	d.until("an answer to "+id, func() bool { _, ok := d.replies[id]; return ok })
	return d.replies[id]
}

// op sends an op and waits for its answer.
func (d *dashboard) op(name wire.OpName, args any) wire.Frame {
	d.t.Helper()
	return d.reply(d.send(name, args))
}

// call starts a tool call and returns its op id.
func (d *dashboard) call(server, tool string) string {
	return d.send(wire.OpCallTool, wire.CallToolArgs{Server: server, Name: tool})
}

// answer answers an ask and fails unless the answer is taken.
func (d *dashboard) answer(ask string, action wire.Action, content map[string]any) {
	d.t.Helper()
	if fr := d.op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask, Action: action, Content: content}); fr.Type != wire.TypeResult {
		d.t.Fatalf("answer %s to %s: %+v", action, ask, fr.Error)
	}
}

// text returns the text of the tool result answering op id.
func (d *dashboard) text(id string) string {
	d.t.Helper()
	fr := d.reply(id)
	if fr.Type != wire.TypeResult {
		d.t.Fatalf("call %s failed: %+v", id, fr.Error)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(fr.Data, &res); err != nil || len(res.Content) != 1 {
		d.t.Fatalf("call %s: result %s", id, fr.Data)
	}
	return res.Content[0].Text
}

// outcome returns what the fixture's tool called by op id reports.
func (d *dashboard) outcome(id string) elicitfixture.Outcome {
	d.t.Helper()
	o, err := elicitfixture.ParseOutcome(d.text(id))
	if err != nil {
		d.t.Fatal(err)
	}
	return o
}
