package hub

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

type testRelay struct {
	hub    *Hub
	srv    *httptest.Server
	key    ed25519.PrivateKey
	signer *authn.Signer
	other  *authn.Signer // same key, another audience
}

func newTestRelay(t *testing.T) *testRelay {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	verifier := authn.NewVerifier(authn.VerifierConfig{RelayKey: key.Public().(ed25519.PublicKey), Issuer: "switchboard", Audience: "switchboard"})
	origins, err := authn.NewOriginPolicy(nil)
	if err != nil {
		t.Fatal(err)
	}
	mgr := session.NewManager(session.Config{Store: st, Dial: func(d session.Dial, emit func(conn.State)) session.Connection {
		return conn.Start(conn.Config{ID: d.Reg.ID, Name: d.Reg.Name, URL: d.Reg.URL, HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0)}, emit)
	}})
	h := New(verifier, origins, mgr, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close(); mgr.Close(); st.Close() })
	return &testRelay{
		hub:    h,
		srv:    srv,
		key:    key,
		signer: authn.NewSigner(key, "switchboard", "switchboard"),
		other:  authn.NewSigner(key, "switchboard", "someone-else"),
	}
}

func (r *testRelay) token(t *testing.T, sub string, ttl time.Duration) string {
	t.Helper()
	tok, err := r.signer.Mint(sub, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// dial opens /ws with the relay's own Origin and the given headers.
func (r *testRelay) dial(t *testing.T, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	if header == nil {
		header = http.Header{}
	}
	if header.Get("Origin") == "" {
		header.Set("Origin", r.srv.URL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.srv.URL, "http")+"/ws", &websocket.DialOptions{HTTPHeader: header})
	if c != nil {
		c.SetReadLimit(wire.MaxResultBytes * 2)
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

func send(t *testing.T, c *websocket.Conn, f wire.Frame) {
	t.Helper()
	b, err := wire.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

func hello(t *testing.T, c *websocket.Conn) {
	t.Helper()
	f, _ := wire.NewFrame(wire.TypeHello, wire.Hello{})
	send(t, c, f)
}

// read returns the next frame, or the error that ended the socket.
func read(c *websocket.Conn) (wire.Frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		return wire.Frame{}, err
	}
	return wire.Decode(b)
}

// attach reads the snapshot and the synced frame that answer a first hello.
func attach(t *testing.T, c *websocket.Conn) wire.Frame {
	t.Helper()
	snap := mustRead(t, c)
	if snap.Type != wire.TypeSnapshot {
		t.Fatalf("got %s, want snapshot", snap.Type)
	}
	if f := mustRead(t, c); f.Type != wire.TypeSynced || f.Seq != snap.Seq {
		t.Fatalf("got %s seq %d, want synced at %d", f.Type, f.Seq, snap.Seq)
	}
	return snap
}

func mustRead(t *testing.T, c *websocket.Conn) wire.Frame {
	t.Helper()
	f, err := read(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBearerTokenGetsSnapshotOfItsOwnUser(t *testing.T) {
	r := newTestRelay(t)
	c, _, err := r.dial(t, bearer(r.token(t, "alice", time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, c)
	f := attach(t, c)
	var snap wire.Snapshot
	if f.Type != wire.TypeSnapshot || json.Unmarshal(f.Data, &snap) != nil || snap.User != "alice" {
		t.Fatalf("got %s %s, want alice's snapshot", f.Type, f.Data)
	}
}

func TestAuthFrameAuthenticatesAnEmbeddedDashboard(t *testing.T) {
	r := newTestRelay(t)
	c, _, err := r.dial(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := wire.NewFrame(wire.TypeAuth, wire.Auth{Token: r.token(t, "bob", time.Hour)})
	send(t, c, auth)
	hello(t, c)
	attach(t, c)
}

func TestSocketWithoutTokenIsClosedUnauthorized(t *testing.T) {
	r := newTestRelay(t)
	c, _, err := r.dial(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	hello(t, c) // a hello where the auth frame must be
	f, err := read(c)
	if got := websocket.CloseStatus(err); got != websocket.StatusCode(wire.CloseUnauthorized) {
		t.Fatalf("got frame %s / err %v (close %d), want close %d", f.Type, err, got, wire.CloseUnauthorized)
	}
}

func TestBadTokensAreRefused(t *testing.T) {
	r := newTestRelay(t)
	expired, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer: "switchboard", Audience: jwt.ClaimStrings{"switchboard"}, Subject: "alice",
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(-time.Hour)),
	}).SignedString(r.key)
	if err != nil {
		t.Fatal(err)
	}
	wrongAud, err := r.other.Mint("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"expired": expired, "wrong audience": wrongAud, "garbage": "not.a.token"} {
		t.Run(name+" bearer", func(t *testing.T) {
			_, resp, err := r.dial(t, bearer(tok))
			if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("dial: %v, response %v; want 401", err, resp)
			}
		})
		t.Run(name+" cookie", func(t *testing.T) {
			_, resp, err := r.dial(t, http.Header{"Cookie": {authn.CookieName + "=" + tok}})
			if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("dial: %v, response %v; want 401", err, resp)
			}
		})
		t.Run(name+" auth frame", func(t *testing.T) {
			c, _, err := r.dial(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			auth, _ := wire.NewFrame(wire.TypeAuth, wire.Auth{Token: tok})
			send(t, c, auth)
			hello(t, c)
			if _, err := read(c); websocket.CloseStatus(err) != websocket.StatusCode(wire.CloseUnauthorized) {
				t.Fatalf("got %v, want close %d", err, wire.CloseUnauthorized)
			}
		})
	}
}

func TestWrongOriginIsRefusedEvenWithAValidToken(t *testing.T) {
	r := newTestRelay(t)
	h := bearer(r.token(t, "alice", time.Hour))
	h.Set("Origin", "http://evil.example")
	_, resp, err := r.dial(t, h)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("dial: %v, response %v; want 403", err, resp)
	}
	h.Del("Origin")
	h.Set("Origin", "null")
	if _, resp, err := r.dial(t, h); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("Origin null: %v; want 403", err)
	}
}

func TestSocketClosesWhenTokenExpires(t *testing.T) {
	r := newTestRelay(t)
	c, _, err := r.dial(t, bearer(r.token(t, "alice", 1500*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, c)
	attach(t, c)
	_, err = read(c)
	if websocket.CloseStatus(err) != websocket.StatusCode(wire.CloseUnauthorized) {
		t.Fatalf("got %v, want close %d at expiry", err, wire.CloseUnauthorized)
	}
}

func TestMalformedFrameGetsAnErrorAndTheSocketStays(t *testing.T) {
	r := newTestRelay(t)
	c, _, err := r.dial(t, bearer(r.token(t, "alice", time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, c)
	attach(t, c)
	for _, junk := range []string{"{not json", `{"v":99,"type":"op"}`, `{"v":1}`} {
		if err := c.Write(context.Background(), websocket.MessageText, []byte(junk)); err != nil {
			t.Fatal(err)
		}
		f := mustRead(t, c)
		if f.Type != wire.TypeError || f.Error.Code != wire.CodeBadFrame {
			t.Fatalf("%q: got %s %+v, want bad_frame error", junk, f.Type, f.Error)
		}
	}
	op, _ := wire.Op("x1", wire.OpAddServer, wire.AddServerArgs{Name: "n", URL: "gopher://x"})
	send(t, c, op)
	f := mustRead(t, c)
	if f.ID != "x1" || f.Type != wire.TypeError || f.Error.Code != wire.CodeInvalidURL {
		t.Fatalf("op after junk: %+v", f)
	}
}

func TestOversizedFrameClosesOnlyThatSocket(t *testing.T) {
	r := newTestRelay(t)
	tok := r.token(t, "alice", time.Hour)
	big, _, err := r.dial(t, bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := r.dial(t, bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, big)
	hello(t, other)
	attach(t, big)
	attach(t, other)

	huge := `{"v":1,"type":"op","id":"h","op":"server.add","data":{"name":"` + strings.Repeat("a", 2<<20) + `"}}`
	big.Write(context.Background(), websocket.MessageText, []byte(huge)) // may fail once the relay closes
	if _, err := read(big); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("oversized frame: %v, want close %d", err, websocket.StatusMessageTooBig)
	}
	op, _ := wire.Op("a1", wire.OpAddServer, wire.AddServerArgs{Name: "unreachable", URL: "http://127.0.0.1:1/mcp"})
	send(t, other, op)
	var sawResult, sawServer bool
	for !sawResult || !sawServer {
		f := mustRead(t, other)
		switch {
		case f.Type == wire.TypeResult && f.ID == "a1":
			sawResult = true
		case f.Type == wire.TypeDelta && strings.Contains(string(f.Data), "unreachable"):
			sawServer = true
		case f.Type == wire.TypeError:
			t.Fatalf("error: %+v", f.Error)
		}
	}
}

func TestCloseReasonFitsInACloseFrame(t *testing.T) {
	r := closeReason(strings.Repeat("é", 200) + "\x00\n")
	if len(r) > maxCloseReason || strings.ContainsAny(r, "\x00\n") {
		t.Fatalf("reason %q is %d bytes", r, len(r))
	}
}

func TestSilentDashboardIsDroppedAndAnAnsweringOneKept(t *testing.T) {
	r := newTestRelay(t)
	r.hub.ping = 50 * time.Millisecond
	tok := r.token(t, "alice", time.Hour)
	silent, _, err := r.dial(t, bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, silent)
	// silent never reads again, so it never answers a ping.
	live, _, err := r.dial(t, bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, live)
	attach(t, live)
	reading := make(chan error, 1)
	go func() { // answers pings by reading, and reports the end of the socket
		for {
			if _, _, err := live.Read(context.Background()); err != nil {
				reading <- err
				return
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for r.hub.open() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sockets open, want the silent one dropped", r.hub.open())
		}
		select {
		case err := <-reading:
			t.Fatalf("the answering dashboard was dropped: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
