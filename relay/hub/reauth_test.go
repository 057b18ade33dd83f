package hub

import (
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// openWithAuthFrame opens a socket as an embedded dashboard does: the token
// in the first frame, then the hello.
func openWithAuthFrame(t *testing.T, r *testRelay, tok string) *websocket.Conn {
	t.Helper()
	c, _, err := r.dial(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := wire.NewFrame(wire.TypeAuth, wire.Auth{Token: tok})
	send(t, c, auth)
	hello(t, c)
	attach(t, c)
	return c
}

// sendAuth hands the open socket a fresh token.
func sendAuth(t *testing.T, c *websocket.Conn, tok string) {
	t.Helper()
	f, _ := wire.NewFrame(wire.TypeAuth, wire.Auth{Token: tok})
	send(t, c, f)
}

// opStillAnswered sends an op the relay refuses at once and checks that the
// socket answers it.
func opStillAnswered(t *testing.T, c *websocket.Conn, id string) {
	t.Helper()
	op, _ := wire.Op(id, wire.OpAddServer, wire.AddServerArgs{Name: "n", URL: "gopher://x"})
	send(t, c, op)
	for {
		f, err := read(c)
		if err != nil {
			t.Fatalf("socket ended (close %d) instead of answering op %s: %v", websocket.CloseStatus(err), id, err)
		}
		if f.ID == id {
			return
		}
	}
}

func TestFreshTokenKeepsTheSocketPastTheOldExpiry(t *testing.T) {
	r := newTestRelay(t)
	c := openWithAuthFrame(t, r, r.token(t, "alice", 1500*time.Millisecond))
	oldExpiry := time.Now().Add(1500 * time.Millisecond)
	sendAuth(t, c, r.token(t, "alice", time.Hour))
	opStillAnswered(t, c, "before") // the fresh token was read before this op
	// Nothing announces that an expiry did not happen: let the old one pass.
	<-time.After(time.Until(oldExpiry) + 300*time.Millisecond)
	opStillAnswered(t, c, "after")
}

func TestRefusedFreshTokenKeepsTheSocketOnItsOldToken(t *testing.T) {
	r := newTestRelay(t)
	c := openWithAuthFrame(t, r, r.token(t, "alice", time.Hour))
	expired, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer: "switchboard", Audience: jwt.ClaimStrings{"switchboard"}, Subject: "alice",
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(-time.Hour)),
	}).SignedString(r.key)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"not.a.token", expired} {
		sendAuth(t, c, tok)
		f, err := read(c)
		if err != nil || f.Type != wire.TypeError || f.Error == nil || f.Error.Code != wire.CodeUnauthorized {
			t.Fatalf("fresh token %.12q…: got %+v / %v, want an unauthorized error frame", tok, f, err)
		}
	}
	opStillAnswered(t, c, "after")
}

func TestFreshTokenOfAnotherUserClosesTheSocket(t *testing.T) {
	r := newTestRelay(t)
	c := openWithAuthFrame(t, r, r.token(t, "alice", time.Hour))
	sendAuth(t, c, r.token(t, "mallory", time.Hour))
	for {
		_, err := read(c)
		if err == nil {
			continue
		}
		if got := websocket.CloseStatus(err); got != websocket.StatusCode(wire.CloseUnauthorized) {
			t.Fatalf("got %v (close %d), want close %d", err, got, wire.CloseUnauthorized)
		}
		return
	}
}
