package elicitfixture_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/session"
	relaystore "github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
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
	st, err := relaystore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	m := session.NewManager(session.Config{Store: st, Logger: logger, Asks: asks, Dial: func(d session.Dial, emit func(conn.State)) session.Connection {
		reg := d.Reg
		return conn.Start(conn.Config{
			ID: reg.ID, Name: reg.Name, URL: reg.URL, Logger: logger, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0),
			HealthInterval: 200 * time.Millisecond, RetryMin: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Asker: d.Asker, Modes: d.Modes, Transport: wire.Transport(reg.Transport),
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
	d.Until(name+" ready", func(v store.View) bool {
		srv := v.Snapshot.ServerByID(res.ID)
		return srv != nil && srv.State == wire.StateReady
	})
	d.Close()
	return res.ID
}

// dashboard is an open dashboard: the dashboard's own client store,
// attached to the session as the relay's socket attaches it.
type dashboard struct {
	*storetest.Dashboard
	t testing.TB
}

// open attaches a dashboard and waits until it is live.
func (r *relay) open() *dashboard {
	r.t.Helper()
	subscribe := func(h wire.Hello) storetest.Subscription { return r.s.Subscribe(h) }
	return &dashboard{storetest.Connect(r.t, storetest.Config{Dial: storetest.InProcess(subscribe), Timeout: waitFor}), r.t}
}

// in returns d reporting to t, for a subtest.
func (d *dashboard) in(t testing.TB) *dashboard { return &dashboard{d.For(t), t} }

// state returns the state the dashboard shows.
func (d *dashboard) state() wire.Snapshot { return d.View().Snapshot }

// server returns the server id as the dashboard shows it, nil if none.
func (d *dashboard) server(id string) *wire.Server {
	s := d.state()
	return s.ServerByID(id)
}

// asks waits until n asks are shown and returns them.
func (d *dashboard) asks(n int) []wire.Ask {
	d.t.Helper()
	return d.Until(strconv.Itoa(n)+" asks", func(v store.View) bool { return len(v.Snapshot.Asks) == n }).Snapshot.Asks
}

// oneWaiting reports whether v shows one ask, accepted and waiting for its URL's completion.
func oneWaiting(v store.View) bool {
	return len(v.Snapshot.Asks) == 1 && v.Snapshot.Asks[0].State == wire.AskWaiting
}

// call starts a tool call.
func (d *dashboard) call(server, tool string) *storetest.Pending {
	d.t.Helper()
	return d.Send(wire.OpCallTool, wire.CallToolArgs{Server: server, Name: tool})
}

// answer answers an ask and fails unless the answer is taken.
func (d *dashboard) answer(ask string, action wire.Action, content map[string]any) {
	d.t.Helper()
	if rep := d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask, Action: action, Content: content}); rep.Err != nil {
		d.t.Fatalf("answer %s to %s: %+v", action, ask, rep.Err)
	}
}

// said describes a reply for a failure message.
func said(r store.Reply) string {
	if r.Err != nil {
		return fmt.Sprintf("error %+v", r.Err)
	}
	return "result " + string(r.Data)
}

// text returns the text of the tool result of call.
func (d *dashboard) text(call *storetest.Pending) string {
	d.t.Helper()
	rep := call.Wait()
	if rep.Err != nil {
		d.t.Fatalf("call %s failed: %+v", call.ID, rep.Err)
	}
	var res wire.CallToolResult
	if err := json.Unmarshal(rep.Data, &res); err != nil || len(res.Content) != 1 {
		d.t.Fatalf("call %s: result %s", call.ID, rep.Data)
	}
	return res.Content[0].Text
}

// outcome returns what the fixture's tool of call reports.
func (d *dashboard) outcome(call *storetest.Pending) elicitfixture.Outcome {
	d.t.Helper()
	o, err := elicitfixture.ParseOutcome(d.text(call))
	if err != nil {
		d.t.Fatal(err)
	}
	return o
}
