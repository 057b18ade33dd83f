package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

var errNoToken = errors.New("authentication required: no session cookie, bearer header or auth frame")

// readAuth reads the first frame, which must carry a token.
func (h *Hub) readAuth(ctx context.Context, c *websocket.Conn) (authn.Claims, error) {
	f, err := readFrame(ctx, c)
	if err != nil || f.Type != wire.TypeAuth {
		return authn.Claims{}, errNoToken
	}
	var a wire.Auth
	if err := json.Unmarshal(f.Data, &a); err != nil || a.Token == "" {
		return authn.Claims{}, errNoToken
	}
	claims, err := h.verifier.Verify(a.Token)
	if err != nil {
		return authn.Claims{}, fmt.Errorf("invalid token: %w", err)
	}
	return claims, nil
}

// readHello reads the hello frame that starts the stream.
func readHello(ctx context.Context, c *websocket.Conn) (wire.Hello, error) {
	f, err := readFrame(ctx, c)
	if err != nil {
		return wire.Hello{}, fmt.Errorf("expected hello: %w", err)
	}
	if f.Type != wire.TypeHello {
		return wire.Hello{}, fmt.Errorf("expected hello, got %q", f.Type)
	}
	var hello wire.Hello
	if len(f.Data) > 0 {
		if err := json.Unmarshal(f.Data, &hello); err != nil {
			return wire.Hello{}, fmt.Errorf("malformed hello: %w", err)
		}
	}
	return hello, nil
}

func readFrame(ctx context.Context, c *websocket.Conn) (wire.Frame, error) {
	typ, b, err := c.Read(ctx)
	if err != nil {
		return wire.Frame{}, err
	}
	if typ != websocket.MessageText {
		return wire.Frame{}, errors.New("frames must be JSON text")
	}
	return wire.Decode(b)
}
