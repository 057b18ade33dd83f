//go:build !js

package storetest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
	"github.com/switchboard-mcp/switchboard/web/store/storetest"
)

// serveWebSocket serves r at a /ws of its own, as the relay's endpoint
// does, to requests with cookie c=ok.
func serveWebSocket(t *testing.T, r *fakeRelay) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if ck, err := req.Cookie("c"); err != nil || ck.Value != "ok" {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, req, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_, b, err := c.Read(req.Context())
		f, derr := wire.Decode(b)
		var hello wire.Hello
		if err != nil || derr != nil || f.Type != wire.TypeHello || json.Unmarshal(f.Data, &hello) != nil {
			c.Close(websocket.StatusCode(wire.CloseProtocolError), "hello expected")
			return
		}
		sub := r.subscribe(hello)
		go func() {
			for {
				_, b, err := c.Read(req.Context())
				if err != nil {
					return
				}
				if f, err := wire.Decode(b); err == nil {
					sub.HandleOp(f)
				}
			}
		}()
		for {
			select {
			case b := <-sub.Outbox():
				if c.Write(req.Context(), websocket.MessageText, b) != nil {
					return
				}
			case <-sub.Done():
				code, _ := sub.CloseStatus()
				c.Close(websocket.StatusCode(code), "")
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
}

func TestWebSocketCarriesTheHeadersFramesOpsAndCloseCode(t *testing.T) {
	r := newFakeRelay(t)
	d := storetest.Connect(t, storetest.Config{URL: serveWebSocket(t, r), Dial: storetest.WebSocket(http.Header{"Cookie": {"c=ok"}})})
	r.ready()
	d.Until("docs ready", docsReady)
	if rep := d.Op(wire.OpRetryServer, wire.ServerArgs{Server: "s1"}); rep.Err != nil || string(rep.Data) != "{}" {
		t.Fatalf("reply %+v, want the relay's result", rep)
	}
	r.last().closeWith(wire.CloseUnauthorized)
	d.Until("signed out", func(v store.View) bool { return v.Status == store.StatusSignedOut })
}

func TestWebSocketRefusedUpgradeIsShown(t *testing.T) {
	r := newFakeRelay(t)
	rec := &recorder{}
	rec.run(func() {
		storetest.Connect(rec, storetest.Config{URL: serveWebSocket(t, r), Dial: storetest.WebSocket(nil), Timeout: 200 * time.Millisecond})
	})
	rec.end()
	if got := rec.failed(); !strings.Contains(got, "not live") || !strings.Contains(got, "401 Unauthorized") {
		t.Fatalf("reported %q, want the refused upgrade named", got)
	}
}
