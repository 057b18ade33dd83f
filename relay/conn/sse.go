package conn

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/readalong"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// transport returns the go-sdk transport of kind (Streamable HTTP or SSE),
// carrying its requests through c's client with first noting the
// endpoint's first answer. streamEnded and broken are as for
// [watchingClient].
func (c *Conn) transport(kind wire.Transport, streamEnded, broken func(), first *firstAnswer) mcp.Transport {
	noted := wrapTransport(c.http, func(base http.RoundTripper) http.RoundTripper {
		first.base = base
		return lingering{base: first}
	})
	limit := c.messageLimit()
	hc := wrapTransport(watchingClient(noted, limit, int64(c.cfg.MaxResultBytes), streamEnded, broken), func(base http.RoundTripper) http.RoundTripper {
		return readalong.Tee(base, c.readAlong)
	})
	if kind == wire.TransportSSE {
		return &sseTransport{
			inner: &mcp.SSEClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc, MaxEventSize: int(limit)},
			life:  c.ctx,
		}
	}
	return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc, MaxEventSize: int(limit)}
}

// messageLimit caps one HTTP response body or event: maxMessageBytes, or
// more when the result limit needs it (a result's JSON grows a little when
// the relay converts it).
func (c *Conn) messageLimit() int64 {
	return max(maxMessageBytes, 2*int64(c.cfg.MaxResultBytes))
}

// sseTransport is the legacy HTTP+SSE transport. The go-sdk's opens its
// event stream with the context of Connect, which for a connection is the
// handshake's, ended once connected; this one opens it with a context that
// lives until the session closes, and still aborts a handshake that outlives
// Connect's context.
type sseTransport struct {
	inner *mcp.SSEClientTransport
	life  context.Context // the connection's
}

// Connect implements [mcp.Transport].
func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	streamCtx, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(streamCtx)
	if !stop() {
		// ctx ended during the handshake, which cancel aborted.
		if err == nil {
			conn.Close()
		}
		return nil, fmt.Errorf("open the SSE stream: %w", context.Cause(ctx))
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &sseConnection{Connection: conn, cancel: cancel}, nil
}

// sseConnection ends its stream's context when closed.
type sseConnection struct {
	mcp.Connection
	cancel context.CancelFunc
}

// Close implements [mcp.Connection].
func (c *sseConnection) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}
