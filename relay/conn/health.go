package conn

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol facts the health probe depends on.
const (
	// statelessProtocol is the first protocol version without ping and
	// sessions (SEP-2575).
	statelessProtocol = "2026-07-28"
	methodDiscover    = "server/discover"
)

// probeTimeout bounds a health probe.
func (c *Conn) probeTimeout() time.Duration {
	return min(max(c.cfg.HealthInterval, minProbeTimeout), maxProbeTimeout)
}

// probe checks that the server of s still answers. Before 2026-07-28 it
// pings; a server that does not know ping still answered. From 2026-07-28 on,
// where ping is gone, it sends server/discover, which such servers must
// implement and which reads only static configuration. (The go-sdk sends a
// standard method through CallCustomMethod because every standard method is
// registered for sending.)
func (c *Conn) probe(s *session, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	if s.cs.InitializeResult().ProtocolVersion >= statelessProtocol {
		_, err := mcp.CallCustomMethod[*mcp.DiscoverParams, *mcp.DiscoverResult](ctx, s.cs, methodDiscover, &mcp.DiscoverParams{})
		return err
	}
	err := s.cs.Ping(ctx, nil)
	if rpcErr := serverError(err); rpcErr != nil && rpcErr.Code == jsonrpc.CodeMethodNotFound {
		return nil
	}
	return err
}
