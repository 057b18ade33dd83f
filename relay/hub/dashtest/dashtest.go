// Package dashtest is a dashboard's socket for tests that run without a
// browser: it opens /ws as the dashboard does, says hello, and keeps what
// the relay streams that such tests look at (the servers' states and the
// pending asks), applying the snapshot and the deltas as the dashboard's
// store does.
package dashtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Wait bounds each WaitUntil.
const Wait = 10 * time.Second

// Dashboard is one dashboard's socket.
type Dashboard struct {
	t      testing.TB
	c      *websocket.Conn
	frames chan wire.Frame
	closed chan error

	servers map[string]wire.ServerState // by server name
	asks    map[string]wire.Ask         // by id
	chat    wire.Snapshot               // its Chats and ChatTurns
}

// Open opens the socket of the relay at base (http://host:port) with
// header (its credentials and Origin) and says hello; it fails t when the
// relay refuses the socket.
func Open(t testing.TB, base string, header http.Header) *Dashboard {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		t.Fatalf("open a dashboard on %s: %v", base, err)
	}
	c.SetReadLimit(-1)
	d := &Dashboard{t: t, c: c, frames: make(chan wire.Frame, 256), closed: make(chan error, 1),
		servers: map[string]wire.ServerState{}, asks: map[string]wire.Ask{}}
	t.Cleanup(func() { c.CloseNow() })
	d.send(wire.TypeHello, "", wire.Hello{})
	go d.read()
	return d
}

func (d *Dashboard) read() {
	for {
		_, b, err := d.c.Read(context.Background())
		if err != nil {
			d.closed <- err
			return
		}
		if f, err := wire.Decode(b); err == nil {
			d.frames <- f
		}
	}
}

// Op sends an op; its result is not awaited.
func (d *Dashboard) Op(name wire.OpName, args any) {
	d.t.Helper()
	d.send(wire.TypeOp, name, args)
}

// Call sends an op and waits for its answer: the result decoded into out,
// or the op's error (a *wire.Error). Frames that come meanwhile are
// applied. It fails the test when no answer comes within Wait.
func (d *Dashboard) Call(name wire.OpName, args, out any) error {
	d.t.Helper()
	d.Op(name, args)
	timeout := time.After(Wait)
	for {
		select {
		case f := <-d.frames:
			switch {
			case f.ID != string(name) || f.Type != wire.TypeResult && f.Type != wire.TypeError:
				d.apply(f)
			case f.Error != nil:
				return f.Error
			default:
				return json.Unmarshal(f.Data, out)
			}
		case err := <-d.closed:
			return err
		case <-timeout:
			d.t.Fatalf("the dashboard got no answer to %s within %v", name, Wait)
		}
	}
}

func (d *Dashboard) send(typ wire.FrameType, op wire.OpName, v any) {
	d.t.Helper()
	f, err := wire.NewFrame(typ, v)
	if err != nil {
		d.t.Fatal(err)
	}
	f.Op, f.ID = op, string(op)
	b, err := wire.Encode(f)
	if err == nil {
		err = d.c.Write(context.Background(), websocket.MessageText, b)
	}
	if err != nil {
		d.t.Fatalf("dashboard: send %s: %v", typ, err)
	}
}

// State is the state of the server named name; "" when there is none.
func (d *Dashboard) State(name string) wire.ServerState { return d.servers[name] }

// Turn is the latest turn of the conversation chat; false when the
// dashboard heard of none.
func (d *Dashboard) Turn(chat string) (wire.ChatTurn, bool) {
	for _, t := range d.chat.ChatTurns {
		if t.Chat == chat {
			return t, true
		}
	}
	return wire.ChatTurn{}, false
}

// Asks are the pending asks.
func (d *Dashboard) Asks() []wire.Ask {
	out := make([]wire.Ask, 0, len(d.asks))
	for _, a := range d.asks {
		out = append(out, a)
	}
	return out
}

// WaitUntil applies frames until ok holds, and fails the test when it does
// not within Wait. When the socket closes first it returns the close error
// (websocket.CloseStatus reads its code).
func (d *Dashboard) WaitUntil(what string, ok func() bool) error {
	d.t.Helper()
	timeout := time.After(Wait)
	for !ok() {
		select {
		case f := <-d.frames:
			d.apply(f)
		case err := <-d.closed:
			return err
		case <-timeout:
			d.t.Fatalf("the dashboard did not see %s within %v; servers %v, %d asks", what, Wait, d.servers, len(d.asks))
		}
	}
	return nil
}

// Closed waits for the socket to close and returns its error.
func (d *Dashboard) Closed() error {
	d.t.Helper()
	return d.WaitUntil("the socket closed", func() bool { return false })
}

// apply keeps what a frame changes.
func (d *Dashboard) apply(f wire.Frame) {
	switch f.Type {
	case wire.TypeSnapshot:
		var s wire.Snapshot
		if json.Unmarshal(f.Data, &s) != nil {
			d.t.Errorf("dashboard: malformed snapshot")
			return
		}
		clear(d.servers)
		clear(d.asks)
		d.chat = wire.Snapshot{Chats: s.Chats, ChatTurns: s.ChatTurns}
		for _, srv := range s.Servers {
			d.servers[srv.Name] = srv.State
		}
		for _, a := range s.Asks {
			d.asks[a.ID] = a
		}
	case wire.TypeDelta:
		var delta wire.Delta
		if json.Unmarshal(f.Data, &delta) != nil {
			d.t.Errorf("dashboard: malformed delta")
			return
		}
		for _, ch := range delta.Changes {
			d.change(ch)
		}
	}
}

func (d *Dashboard) change(ch wire.Change) {
	switch ch.Kind {
	case wire.KindServer:
		var srv wire.Server
		if json.Unmarshal(ch.Value, &srv) == nil && srv.Name != "" {
			d.servers[srv.Name] = srv.State
		}
	case wire.KindChat, wire.KindChatTurn, wire.KindChatText, wire.KindChatPart, wire.KindChatEnd:
		if err := d.chat.Apply(ch); err != nil {
			d.t.Errorf("dashboard: %v", err)
		}
	case wire.KindAsk:
		if ch.Remove {
			delete(d.asks, ch.Key)
			return
		}
		var a wire.Ask
		if json.Unmarshal(ch.Value, &a) == nil {
			d.asks[ch.Key] = a
		}
	}
}
