package store

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// relay is a scripted stand-in for the browser's WebSocket and the relay
// behind it: every dial makes a fakeSocket the test drives by hand.
type relay struct {
	t       *testing.T
	mu      sync.Mutex
	sockets []*fakeSocket
	timers  []timer
	changes int
}

type timer struct {
	d time.Duration
	f func()
}

type fakeSocket struct {
	r      *relay
	url    string
	h      Handlers
	sent   []string
	closed int // close code the client used, 0 while open
}

func newRelay(t *testing.T) (*relay, *Client) {
	r := &relay{t: t}
	c := New(Config{
		URL:  "ws://relay.test/ws",
		Dial: r.dial,
		AfterFunc: func(d time.Duration, f func()) {
			r.mu.Lock()
			r.timers = append(r.timers, timer{d, f})
			r.mu.Unlock()
		},
		OnChange: func() {
			r.mu.Lock()
			r.changes++
			r.mu.Unlock()
		},
	})
	return r, c
}

func (r *relay) dial(url string, h Handlers) (Socket, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &fakeSocket{r: r, url: url, h: h}
	r.sockets = append(r.sockets, s)
	return s, nil
}

func (s *fakeSocket) Send(text string) error {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.sent = append(s.sent, text)
	return nil
}

func (s *fakeSocket) Close(code int, reason string) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.closed = code
}

// last returns the newest socket, failing if there is none.
func (r *relay) last() *fakeSocket {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sockets) == 0 {
		r.t.Fatal("no socket was dialed")
	}
	return r.sockets[len(r.sockets)-1]
}

func (r *relay) dials() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sockets)
}

// fire runs the oldest scheduled timer and returns its delay.
func (r *relay) fire() time.Duration {
	r.t.Helper()
	r.mu.Lock()
	if len(r.timers) == 0 {
		r.mu.Unlock()
		r.t.Fatal("no reconnection was scheduled")
	}
	tm := r.timers[0]
	r.timers = r.timers[1:]
	r.mu.Unlock()
	tm.f()
	return tm.d
}

func (r *relay) pendingTimers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.timers)
}

// frames returns the frames the client sent on s.
func (s *fakeSocket) frames() []wire.Frame {
	s.r.t.Helper()
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	var out []wire.Frame
	for _, text := range s.sent {
		f, err := wire.Decode([]byte(text))
		if err != nil {
			s.r.t.Fatalf("client sent a bad frame %s: %v", text, err)
		}
		out = append(out, f)
	}
	return out
}

// lastFrame returns the last frame the client sent on s.
func (s *fakeSocket) lastFrame() wire.Frame {
	s.r.t.Helper()
	fs := s.frames()
	if len(fs) == 0 {
		s.r.t.Fatal("the client sent nothing")
	}
	return fs[len(fs)-1]
}

func (s *fakeSocket) open()                    { s.h.Open() }
func (s *fakeSocket) drop(code wire.CloseCode) { s.h.Closed(int(code)) }
func (s *fakeSocket) recv(f wire.Frame) {
	s.r.t.Helper()
	b, err := wire.Encode(f)
	if err != nil {
		s.r.t.Fatal(err)
	}
	s.h.Message(string(b))
}

func (s *fakeSocket) snapshot(seq uint64, snap wire.Snapshot) {
	s.r.t.Helper()
	f, err := wire.NewFrame(wire.TypeSnapshot, snap)
	if err != nil {
		s.r.t.Fatal(err)
	}
	f.Seq = seq
	s.recv(f)
}

// synced ends a catch-up at seq, as the relay does after a hello.
func (s *fakeSocket) synced(seq uint64) {
	s.r.t.Helper()
	s.recv(wire.Frame{V: wire.Version, Type: wire.TypeSynced, Seq: seq})
}

func (s *fakeSocket) delta(seq uint64, changes ...wire.Change) {
	s.r.t.Helper()
	f, err := wire.NewFrame(wire.TypeDelta, wire.Delta{Changes: changes})
	if err != nil {
		s.r.t.Fatal(err)
	}
	f.Seq = seq
	s.recv(f)
}

func (s *fakeSocket) result(id string, v any) {
	s.r.t.Helper()
	f, err := wire.Result(id, v)
	if err != nil {
		s.r.t.Fatal(err)
	}
	s.recv(f)
}

// connect starts c and brings it live with snap at seq.
func connect(t *testing.T, r *relay, c *Client, seq uint64, snap wire.Snapshot) *fakeSocket {
	t.Helper()
	c.Start()
	s := r.last()
	s.open()
	s.snapshot(seq, snap)
	s.synced(seq)
	return s
}

func toolChange(server string, tool wire.Tool) wire.Change {
	b, _ := json.Marshal(tool)
	return wire.Change{Kind: wire.KindTool, Server: server, Key: tool.Name, Value: b}
}

func serverChange(srv wire.Server) wire.Change {
	b, _ := json.Marshal(srv.Meta())
	return wire.Change{Kind: wire.KindServer, Server: srv.ID, Key: srv.ID, Value: b}
}

func twoServers() wire.Snapshot {
	return wire.Snapshot{
		Epoch: "e1",
		User:  "ada",
		Servers: []wire.Server{
			{ID: "s1", Name: "alpha", URL: "http://127.0.0.1:9001/mcp", Transport: wire.TransportStreamable, State: wire.StateReady,
				Tools: []wire.Tool{{Name: "echo"}, {Name: "add"}}},
			{ID: "s2", Name: "beta", URL: "http://127.0.0.1:9002/mcp", Transport: wire.TransportStreamable, State: wire.StateConnecting},
		},
	}
}

func helloOf(t *testing.T, f wire.Frame) wire.Hello {
	t.Helper()
	if f.Type != wire.TypeHello {
		t.Fatalf("frame type %q, want hello", f.Type)
	}
	var h wire.Hello
	if err := json.Unmarshal(f.Data, &h); err != nil {
		t.Fatalf("hello data %s: %v", f.Data, err)
	}
	return h
}
