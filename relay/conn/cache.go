package conn

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noCache is a sending middleware that zeroes the SEP-2549 time-to-live of
// every cacheable result, so that the go-sdk's per-session caches never serve
// one. The go-sdk drops its list cache when a list_changed notification
// arrives, but a listing in flight at that moment puts its stale answer back
// afterwards, and the rediscovery that the notification asked for would then
// read it. The relay lists only when it needs the server's current answer.
func noCache(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			r.TTLMs = 0
		case *mcp.ListPromptsResult:
			r.TTLMs = 0
		case *mcp.ListResourcesResult:
			r.TTLMs = 0
		case *mcp.ListResourceTemplatesResult:
			r.TTLMs = 0
		case *mcp.ReadResourceResult:
			r.TTLMs = 0
		}
		return res, nil
	}
}
