package readalong

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connection returns conn, whose every message read is also shown to scan,
// encoded: the read-along of a transport that is not HTTP (a process's
// standard output). A message over [MaxScanBytes] passes unread.
func Connection(conn mcp.Connection, scan func(msg []byte)) mcp.Connection {
	return &connection{Connection: conn, scan: scan}
}

// connection is the mcp.Connection of [Connection].
type connection struct {
	mcp.Connection
	scan func(msg []byte)
}

// Read implements [mcp.Connection].
func (c *connection) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if b, err := jsonrpc.EncodeMessage(msg); err == nil && len(b) <= MaxScanBytes {
			c.scan(b)
		}
	}
	return msg, err
}
