package e2e

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// shortTTL is the life of a token that a test watches expire: long enough
// to authenticate and get the snapshot on a busy machine (an expiry is
// whole seconds, so a token may live a second less).
const shortTTL = 5 * time.Second

// evilOrigin is a site that is not the relay's.
const evilOrigin = "http://evil.example"

// dialCase is a way of opening /ws and what the relay should make of it.
type dialCase struct {
	name      string
	header    http.Header
	authToken string // sent in an auth frame when set
	// One of: the HTTP status refusing the upgrade, the close code, or a snapshot.
	wantStatus   int
	wantClose    wire.CloseCode
	wantSnapshot bool
}

func TestWebSocketRefusals(t *testing.T) {
	r := startRelay(t)
	cookie := r.sessionCookie(t)
	for _, tc := range dialCases(t, r, cookie) {
		t.Run(tc.name, func(t *testing.T) { checkDial(t, r, tc) })
	}
	t.Run("socket closes when its token expires", func(t *testing.T) { socketClosesWhenItsTokenExpires(t, r) })
	t.Run("browser", func(t *testing.T) { browserPagesOpeningTheSocket(t, r) })
}

// dialCases are the ways TestWebSocketRefusals opens /ws on r: with no
// credentials, with tokens in an auth frame (expired, for another audience,
// signed by another key, valid), with the session cookie or an expired one,
// with an expired bearer header, and with a wrong Origin or none.
func dialCases(t *testing.T, r *relay, cookie *http.Cookie) []dialCase {
	t.Helper()
	expired := localClaims()
	expired.IssuedAt = jwt.NewNumericDate(time.Now().Add(-2 * time.Hour))
	expired.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-time.Hour))
	otherAudience := localClaims()
	otherAudience.Audience = jwt.ClaimStrings{"another-service"}
	_, strangerKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	expiredToken := r.signWithRelayKey(t, expired)
	withCookie := func(c *http.Cookie) http.Header { return r.dialHeaders(c) }
	expiredCookie := &http.Cookie{Name: authn.CookieName, Value: expiredToken}

	return []dialCase{
		{name: "no credentials", header: withCookie(nil), wantClose: wire.CloseUnauthorized},
		{name: "expired token in auth frame", header: withCookie(nil), authToken: expiredToken, wantClose: wire.CloseUnauthorized},
		{name: "token for another audience", header: withCookie(nil), authToken: r.signWithRelayKey(t, otherAudience), wantClose: wire.CloseUnauthorized},
		{name: "token signed by another key", header: withCookie(nil), authToken: signToken(t, strangerKey, localClaims()), wantClose: wire.CloseUnauthorized},
		{name: "valid token in auth frame", header: withCookie(nil), authToken: r.mint(t, service.DefaultLocalUser, time.Hour), wantSnapshot: true},
		{name: "valid cookie", header: withCookie(cookie), wantSnapshot: true},
		{name: "expired cookie", header: withCookie(expiredCookie), wantStatus: http.StatusUnauthorized},
		{name: "expired bearer header", header: http.Header{"Origin": {r.URL()}, "Authorization": {"Bearer " + expiredToken}}, wantStatus: http.StatusUnauthorized},
		{name: "wrong Origin with a valid cookie", header: http.Header{"Origin": {evilOrigin}, "Cookie": {cookie.String()}}, wantStatus: http.StatusForbidden},
		{name: "no Origin with a valid cookie", header: http.Header{"Cookie": {cookie.String()}}, wantStatus: http.StatusForbidden},
	}
}

// checkDial opens /ws as tc says and checks the relay's answer: the upgrade
// refused, the socket closed before any snapshot or delta, or a snapshot.
func checkDial(t *testing.T, r *relay, tc dialCase) {
	c, resp, err := r.dial(tc.header)
	if tc.wantStatus != 0 {
		if err == nil {
			c.CloseNow()
			t.Fatalf("upgrade accepted, want HTTP %d", tc.wantStatus)
		}
		if resp == nil || resp.StatusCode != tc.wantStatus {
			t.Fatalf("upgrade refused with %v (response %v), want HTTP %d", err, statusOf(resp), tc.wantStatus)
		}
		return
	}
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.CloseNow()
	s := &socket{t: t, c: c}
	if tc.authToken != "" {
		s.send(wire.Frame{Type: wire.TypeAuth, Data: json.RawMessage(mustJSON(wire.Auth{Token: tc.authToken}))})
	}
	s.send(wire.Frame{Type: wire.TypeHello, Data: json.RawMessage(`{}`)})
	if tc.wantSnapshot {
		if snap := s.snapshot(); snap.User != service.DefaultLocalUser {
			t.Errorf("snapshot for user %q, want local", snap.User)
		}
		return
	}
	code, seen := s.closeStatus()
	if code != websocket.StatusCode(tc.wantClose) {
		t.Errorf("socket closed with %d, want %d", code, tc.wantClose)
	}
	for _, f := range seen {
		if f.Type == wire.TypeSnapshot || f.Type == wire.TypeDelta {
			t.Errorf("an unauthenticated socket received a %s frame", f.Type)
		}
	}
}

// socketClosesWhenItsTokenExpires authenticates a socket with a short-lived
// token and waits for the relay to close it.
func socketClosesWhenItsTokenExpires(t *testing.T, r *relay) {
	c, _, err := r.dial(r.dialHeaders(nil))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.CloseNow()
	s := &socket{t: t, c: c}
	s.send(wire.Frame{Type: wire.TypeAuth, Data: json.RawMessage(mustJSON(wire.Auth{Token: r.mint(t, service.DefaultLocalUser, shortTTL)}))})
	s.send(wire.Frame{Type: wire.TypeHello, Data: json.RawMessage(`{}`)})
	s.snapshot()
	if code, _ := s.closeStatus(); code != websocket.StatusCode(wire.CloseUnauthorized) {
		t.Errorf("socket closed with %d when its token expired, want %d", code, wire.CloseUnauthorized)
	}
}

// browserPagesOpeningTheSocket opens /ws from the dashboard's own page, which
// is let in, and from a page of another origin on the same host, which is
// refused.
func browserPagesOpeningTheSocket(t *testing.T, r *relay) {
	p := openTab(t)
	p.login(r)
	ok := p.openWebSocket(r.wsURL())
	if !ok.Opened || ok.First != wire.TypeSnapshot {
		t.Errorf("the dashboard's own page opening /ws: %+v, want it open and a snapshot first", ok)
	}

	// A page of another origin on the same host: the browser sends the
	// session cookie along (same site), so only the Origin check stops it.
	other := serveBlankPage(t)
	p.navigate(other)
	refused := p.openWebSocket(r.wsURL())
	if refused.Opened || refused.First != "" {
		t.Errorf("a page at %s opening /ws with the session cookie: %+v, want it refused", other, refused)
	}
}

// wsOutcome is what a page's WebSocket did first.
type wsOutcome struct {
	Opened bool           `json:"opened"`
	First  wire.FrameType `json:"first"` // type of the first frame received
	Code   int            `json:"code"`  // close code, when it closed first
}

// openWebSocket opens a WebSocket from the page, says hello, and reports the
// first frame or the close.
func (p *tab) openWebSocket(url string) wsOutcome {
	p.t.Helper()
	js := fmt.Sprintf(`new Promise(resolve => {
		const out = {opened: false, first: "", code: 0};
		const ws = new WebSocket(%s);
		ws.onopen = () => { out.opened = true; ws.send(%s); };
		ws.onmessage = e => { out.first = JSON.parse(e.data).type; ws.close(); resolve(out); };
		ws.onclose = e => { out.code = e.code; resolve(out); };
	})`, jsString(url), jsString(`{"v":1,"type":"hello","data":{}}`))
	return evalAwait[wsOutcome](p, js)
}

// serveBlankPage serves an empty page on another loopback port: another origin.
func serveBlankPage(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><title>another site</title><p>another site</p>")
		}),
		ReadHeaderTimeout: readHeaderTimeout,
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func statusOf(resp *http.Response) string {
	if resp == nil {
		return "none"
	}
	return resp.Status
}
