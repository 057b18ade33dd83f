package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

// Go WebSocket clients of the relay, for what a browser cannot show.
const (
	socketTimeout = 10 * time.Second
	// socketReadLimit is what a client accepts in one frame: a snapshot or
	// result can be much larger than the relay's inbound limit.
	socketReadLimit = 2 * wire.MaxResultBytes
)

// sessionCookie logs in through a fresh login link, as a browser would, and
// returns the session cookie the relay set.
func (r *relay) sessionCookie(t testing.TB) *http.Cookie {
	t.Helper()
	client := &http.Client{
		Timeout:       socketTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Get(r.loginURL(t))
	if err != nil {
		t.Fatalf("log in: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("log in: status %s, want 303", resp.Status)
	}
	for _, c := range resp.Cookies() {
		if c.Name == authn.CookieName {
			return c
		}
	}
	t.Fatalf("log in: no %s cookie in %v", authn.CookieName, resp.Header.Values("Set-Cookie"))
	return nil
}

// dialHeaders are the headers of a same-origin upgrade, plus the cookie if any.
func (r *relay) dialHeaders(cookie *http.Cookie) http.Header {
	h := http.Header{"Origin": {r.URL()}}
	if cookie != nil {
		h.Set("Cookie", cookie.String())
	}
	return h
}

// dial opens a WebSocket to the relay with the given headers.
func (r *relay) dial(h http.Header) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), socketTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, r.wsURL(), &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		c.SetReadLimit(socketReadLimit)
	}
	return c, resp, err
}

// socket is a Go client of the relay's WebSocket that reads it frame by
// frame, for what the protocol itself must do. What the user's state
// becomes is waited for in the socket's mirror: the dashboard's own client
// store, over a socket of its own with the same headers.
type socket struct {
	t   testing.TB
	c   *websocket.Conn
	ids atomic.Int64
	// url and header open the mirror; a socket without them has none.
	url    string
	header http.Header
	mirror *storetest.Dashboard // nil until a wait on the state opens it
}

// openSocket dials with the session cookie, says hello and returns the
// socket with the snapshot it got.
func (r *relay) openSocket(t testing.TB, cookie *http.Cookie) (*socket, wire.Snapshot) {
	t.Helper()
	h := r.dialHeaders(cookie)
	c, _, err := r.dial(h)
	if err != nil {
		t.Fatalf("dial relay: %v", err)
	}
	s := &socket{t: t, c: c, url: r.wsURL(), header: h}
	t.Cleanup(func() { c.CloseNow() })
	s.send(wire.Frame{Type: wire.TypeHello, Data: json.RawMessage(`{}`)})
	return s, s.snapshot()
}

// send writes one frame.
func (s *socket) send(f wire.Frame) {
	s.t.Helper()
	b, err := wire.Encode(f)
	if err != nil {
		s.t.Fatalf("encode frame: %v", err)
	}
	s.sendRaw(b)
}

// sendRaw writes one text message as it is.
func (s *socket) sendRaw(b []byte) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), socketTimeout)
	defer cancel()
	if err := s.c.Write(ctx, websocket.MessageText, b); err != nil {
		s.t.Fatalf("write frame: %v", err)
	}
}

// read reads the next frame, or returns the error that ended the socket or
// says that the frame cannot be read.
func (s *socket) read() (wire.Frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), socketTimeout)
	defer cancel()
	_, b, err := s.c.Read(ctx)
	if err != nil {
		return wire.Frame{}, err
	}
	var f wire.Frame
	if err := json.Unmarshal(b, &f); err != nil {
		return wire.Frame{}, errors.New("relay sent a frame that is not JSON: " + err.Error())
	}
	return f, readable(f)
}

// readable checks that the data of a snapshot or delta frame decodes; what
// the frames make of the state is the mirror's business.
func readable(f wire.Frame) error {
	var err error
	switch f.Type {
	case wire.TypeSnapshot:
		err = json.Unmarshal(f.Data, &wire.Snapshot{})
	case wire.TypeDelta:
		err = json.Unmarshal(f.Data, &wire.Delta{})
	}
	if err != nil {
		return fmt.Errorf("relay sent a %s frame whose data does not decode: %w", f.Type, err)
	}
	return nil
}

// next reads frames until one satisfies match, failing the test if the
// socket ends first.
func (s *socket) next(what string, match func(wire.Frame) bool) wire.Frame {
	s.t.Helper()
	for {
		f, err := s.read()
		if err != nil {
			s.t.Fatalf("waiting for %s: %v", what, err)
		}
		if match(f) {
			return f
		}
	}
}

// snapshot waits for the snapshot frame.
func (s *socket) snapshot() wire.Snapshot {
	s.t.Helper()
	f := s.next("a snapshot", func(f wire.Frame) bool { return f.Type == wire.TypeSnapshot })
	var snap wire.Snapshot
	if err := json.Unmarshal(f.Data, &snap); err != nil {
		s.t.Fatalf("decode snapshot: %v", err)
	}
	return snap
}

// op sends an op and returns its answer, a result or an error frame.
func (s *socket) op(name wire.OpName, args any) wire.Frame {
	s.t.Helper()
	id := "e2e-" + strconv.FormatInt(s.ids.Add(1), 10)
	f, err := wire.Op(id, name, args)
	if err != nil {
		s.t.Fatalf("build op %s: %v", name, err)
	}
	s.send(f)
	return s.next("the answer to op "+string(name), func(f wire.Frame) bool {
		return f.ID == id && (f.Type == wire.TypeResult || f.Type == wire.TypeError)
	})
}

// addServer registers a server and returns its id.
func (s *socket) addServer(name, url string) string {
	s.t.Helper()
	f := s.op(wire.OpAddServer, wire.AddServerArgs{Name: name, URL: url})
	if f.Type != wire.TypeResult {
		s.t.Fatalf("add server %s: %+v", name, f.Error)
	}
	var res wire.AddServerResult
	if err := json.Unmarshal(f.Data, &res); err != nil {
		s.t.Fatalf("decode add result: %v", err)
	}
	return res.ID
}

// waitChange reads deltas until one carries a change satisfying match.
func (s *socket) waitChange(what string, match func(wire.Change) bool) wire.Change {
	s.t.Helper()
	var found wire.Change
	s.next(what, func(f wire.Frame) bool {
		if f.Type != wire.TypeDelta {
			return false
		}
		var d wire.Delta
		if err := json.Unmarshal(f.Data, &d); err != nil {
			s.t.Fatalf("decode delta: %v", err)
		}
		for _, c := range d.Changes {
			if match(c) {
				found = c
				return true
			}
		}
		return false
	})
	return found
}

// closeStatus reads until the socket ends and returns its close code, -1
// when it ended without a close frame. Frames read on the way are returned.
func (s *socket) closeStatus() (websocket.StatusCode, []wire.Frame) {
	s.t.Helper()
	code, seen, err := s.readToClose()
	if err != nil {
		s.t.Fatal(err)
	}
	return code, seen
}

// readToClose is closeStatus for another goroutine than the test's: it
// returns an error when the relay kept the socket open.
func (s *socket) readToClose() (websocket.StatusCode, []wire.Frame, error) {
	var seen []wire.Frame
	for {
		f, err := s.read()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return 0, seen, fmt.Errorf("the relay kept the socket open for %v", socketTimeout)
			}
			return websocket.CloseStatus(err), seen, nil
		}
		seen = append(seen, f)
	}
}

// waitServerState waits until the socket's mirror shows the server id in state.
func (s *socket) waitServerState(id string, state wire.ServerState) {
	s.t.Helper()
	s.dashboard().Until("server "+id+" "+string(state), func(v store.View) bool {
		srv := v.Snapshot.ServerByID(id)
		return srv != nil && srv.State == state
	})
}

// dashboard returns the socket's mirror, connecting it the first time. It
// fails the test if it ever has to resync.
func (s *socket) dashboard() *storetest.Dashboard {
	s.t.Helper()
	if s.mirror == nil {
		if s.url == "" {
			s.t.Fatalf("the socket has no address for a mirror")
		}
		s.mirror = storetest.Connect(s.t, storetest.Config{URL: s.url, Dial: storetest.WebSocket(s.header), Timeout: socketTimeout})
	}
	return s.mirror
}
