package web

import (
	"fmt"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/web/store"
)

// relayPath is where the relay serves its WebSocket, on the dashboard's origin.
const relayPath = "/ws"

// relayURL returns the WebSocket address on the same origin as page.
func relayURL(page *url.URL) string {
	u := url.URL{Scheme: "ws", Host: page.Host, Path: relayPath}
	if page.Scheme == "https" {
		u.Scheme = "wss"
	}
	return u.String()
}

// browserSocket is the browser's WebSocket, reached through go-app's JS values.
type browserSocket struct {
	ws    app.Value
	funcs []app.Func
}

// dialBrowser is the [store.Dialer] of the browser. The session cookie the
// relay set at login travels with the upgrade request, so nothing else
// authenticates the socket.
func dialBrowser(rawURL string, h store.Handlers) (s store.Socket, err error) {
	defer func() {
		if r := recover(); r != nil { // the constructor throws on a malformed URL
			err = fmt.Errorf("open websocket %s: %v", rawURL, r)
		}
	}()
	bs := &browserSocket{ws: app.Window().Get("WebSocket").New(rawURL)}
	bs.on("open", func(app.Value) { h.Open() })
	bs.on("message", func(ev app.Value) {
		if data := ev.Get("data"); data.Type() == app.TypeString {
			h.Message(data.String())
		}
	})
	bs.on("close", func(ev app.Value) {
		for _, f := range bs.funcs {
			f.Release()
		}
		h.Closed(ev.Get("code").Int())
	})
	return bs, nil
}

// on sets the socket's on<event> handler.
func (s *browserSocket) on(event string, handle func(ev app.Value)) {
	f := app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			handle(args[0])
		}
		return nil
	})
	s.funcs = append(s.funcs, f)
	s.ws.Set("on"+event, f)
}

// Send implements [store.Socket].
func (s *browserSocket) Send(text string) (err error) {
	defer func() {
		if r := recover(); r != nil { // send throws while the socket is still connecting
			err = fmt.Errorf("websocket send: %v", r)
		}
	}()
	s.ws.Call("send", text)
	return nil
}

// Close implements [store.Socket].
func (s *browserSocket) Close(code int, reason string) {
	s.ws.Call("close", code, reason)
}
