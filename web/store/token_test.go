package store

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// tokenBox is a host page's token as the embed holds it.
type tokenBox struct {
	mu  sync.Mutex
	tok string
}

func (b *tokenBox) get() string  { b.mu.Lock(); defer b.mu.Unlock(); return b.tok }
func (b *tokenBox) set(t string) { b.mu.Lock(); b.tok = t; b.mu.Unlock() }

func newTokenRelay(t *testing.T) (*relay, *Client, *tokenBox) {
	r, c := newRelay(t)
	box := &tokenBox{}
	c.cfg.Token = box.get
	return r, c, box
}

// authToken returns the token of an auth frame, failing on any other frame.
func authToken(t *testing.T, f wire.Frame) string {
	t.Helper()
	var a wire.Auth
	if f.Type != wire.TypeAuth || json.Unmarshal(f.Data, &a) != nil {
		t.Fatalf("got a %s frame %s, want auth", f.Type, f.Data)
	}
	return a.Token
}

func TestEmbeddedClientWaitsForItsTokenThenSendsItBeforeHello(t *testing.T) {
	r, c, box := newTokenRelay(t)
	c.Start()
	if r.dials() != 0 {
		t.Fatalf("%d dials without a token", r.dials())
	}
	c.Reauth() // still none
	if r.dials() != 0 {
		t.Fatalf("%d dials without a token", r.dials())
	}
	box.set("t1")
	c.Reauth()
	if r.dials() != 1 {
		t.Fatalf("%d dials after the token came, want 1", r.dials())
	}
	s := r.last()
	s.open()
	fs := s.frames()
	if len(fs) != 2 || authToken(t, fs[0]) != "t1" || fs[1].Type != wire.TypeHello {
		t.Fatalf("frames %+v, want auth t1 then hello", fs)
	}
}

func TestFreshTokenGoesOnTheOpenSocket(t *testing.T) {
	r, c, box := newTokenRelay(t)
	box.set("t1")
	s := connect(t, r, c, 1, wire.Snapshot{Epoch: "e"})
	box.set("t2")
	c.Reauth()
	if r.dials() != 1 {
		t.Fatalf("%d dials, want the socket kept", r.dials())
	}
	if got := authToken(t, s.lastFrame()); got != "t2" {
		t.Fatalf("sent token %q, want t2", got)
	}
	if c.View().Status != StatusLive {
		t.Fatalf("status %s, want live", c.View().Status)
	}
}

func TestSignedOutClientConnectsAgainWithAFreshToken(t *testing.T) {
	r, c, box := newTokenRelay(t)
	box.set("t1")
	s := connect(t, r, c, 1, wire.Snapshot{Epoch: "e"})
	s.drop(wire.CloseUnauthorized)
	if c.View().Status != StatusSignedOut || r.pendingTimers() != 0 {
		t.Fatalf("status %s with %d retries, want signed out and no retry", c.View().Status, r.pendingTimers())
	}
	box.set("t2")
	c.Reauth()
	if c.View().Status != StatusConnecting || r.dials() != 2 {
		t.Fatalf("status %s after %d dials, want connecting on a second socket", c.View().Status, r.dials())
	}
	next := r.last()
	next.open()
	if got := authToken(t, next.frames()[0]); got != "t2" {
		t.Fatalf("new socket sent token %q, want t2", got)
	}
	next.snapshot(1, wire.Snapshot{Epoch: "e"})
	next.synced(1)
	if c.View().Status != StatusLive {
		t.Fatalf("status %s, want live again", c.View().Status)
	}
}

func TestClientWithoutTokensSendsNoAuthFrame(t *testing.T) {
	r, c := newRelay(t)
	s := connect(t, r, c, 1, wire.Snapshot{Epoch: "e"})
	c.Reauth()
	for _, f := range s.frames() {
		if f.Type == wire.TypeAuth {
			t.Fatalf("a cookie-authenticated client sent an auth frame")
		}
	}
}
