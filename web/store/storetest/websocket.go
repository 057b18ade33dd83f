//go:build !js

package storetest

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/web/store"
)

// Timeouts of a [WebSocket] socket.
const (
	dialTimeout  = 10 * time.Second // to open the socket
	writeTimeout = 10 * time.Second // to write one frame
)

// WebSocket returns a dialer of real WebSockets to a relay's /ws (the
// address is Config.URL), whose upgrade requests carry header: the session
// cookie, an Origin, an Authorization header, as the test chooses. Like a
// browser's socket, it takes frames of any size and ignores binary ones. A
// refused upgrade is a dial error, which the client counts as a drop.
func WebSocket(header http.Header) store.Dialer {
	return func(url string, h store.Handlers) (store.Socket, error) {
		ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
		defer cancel()
		c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header.Clone()})
		if err != nil {
			if resp != nil {
				return nil, fmt.Errorf("dial %s: %s: %w", url, resp.Status, err)
			}
			return nil, fmt.Errorf("dial %s: %w", url, err)
		}
		c.SetReadLimit(-1)
		go read(c, h)
		return &wsSocket{c: c}, nil
	}
}

// read reports the socket's events until it ends.
func read(c *websocket.Conn, h store.Handlers) {
	h.Open()
	for {
		typ, b, err := c.Read(context.Background())
		if err != nil {
			code := int(websocket.CloseStatus(err))
			if code == -1 {
				code = store.CloseAbnormal
			}
			h.Closed(code)
			return
		}
		if typ == websocket.MessageText {
			h.Message(string(b))
		}
	}
}

// wsSocket is a socket of [WebSocket].
type wsSocket struct {
	c *websocket.Conn
}

// Send implements [store.Socket].
func (s *wsSocket) Send(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return s.c.Write(ctx, websocket.MessageText, []byte(text))
}

// Close implements [store.Socket]; like a browser's, it does not wait for
// the close handshake.
func (s *wsSocket) Close(code int, reason string) {
	go s.c.Close(websocket.StatusCode(code), reason)
}

// drop ends the socket without a close handshake, as a network failure does.
func (s *wsSocket) drop() { s.c.CloseNow() }
