// Package hop is the floor of the bench's call figures: the least an extra
// hop costs between a client and a go-sdk server on this machine. Its
// handler serves a minimal go-sdk proxy at /mcp (a server whose one tool,
// tick, calls the upstream's with a go-sdk client: no keys, no log) and a
// minimal WebSocket relay at /ws (a message of arguments in, the same go-sdk
// call, the result out).
package hop

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is the upstream's tool the hop calls, and the proxy's one tool.
const Tool = "tick"

var emptyObject = map[string]any{"type": "object"}

// Handler connects to the MCP server at upstream and serves the proxy and
// the relay in front of it; close ends the upstream session.
func Handler(ctx context.Context, upstream string) (h http.Handler, close func() error, err error) {
	up, err := mcp.NewClient(&mcp.Implementation{Name: "hop", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: upstream}, nil)
	if err != nil {
		return nil, nil, err
	}
	proxy := mcp.NewServer(&mcp.Implementation{Name: "proxy", Version: "1"}, nil)
	proxy.AddTool(&mcp.Tool{Name: Tool, InputSchema: emptyObject}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return up.CallTool(ctx, &mcp.CallToolParams{Name: Tool, Arguments: req.Params.Arguments})
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return proxy }, nil))
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			var args map[string]any
			if err := json.Unmarshal(b, &args); err != nil {
				return
			}
			res, err := up.CallTool(ctx, &mcp.CallToolParams{Name: Tool, Arguments: args})
			if err != nil {
				return
			}
			out, err := json.Marshal(res)
			if err != nil || c.Write(ctx, websocket.MessageText, out) != nil {
				return
			}
		}
	})
	return mux, up.Close, nil
}

// Relayed times one call through the relay at /ws on c: a message of no
// arguments out, the result in.
func Relayed(ctx context.Context, c *websocket.Conn) (time.Duration, error) {
	start := time.Now()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{}`)); err != nil {
		return 0, err
	}
	_, _, err := c.Read(ctx)
	return time.Since(start), err
}
