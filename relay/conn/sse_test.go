package conn

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestSSEConnectionStaysOpenAfterTheHandshakeAndClosesCleanly(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "sse-fixture", Version: "1"}, nil)
	addEcho(server)
	hs := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()

	cfg := testConfig(hs.URL)
	cfg.Transport = wire.TransportSSE
	r := newRecorder(t)
	c := Start(cfg, r.Report)
	ready := r.AwaitState(wire.StateReady)
	if len(ready.Lists.Tools) != 1 {
		t.Fatalf("ready %+v", ready)
	}
	// The event stream outlived the handshake's context: answers still arrive.
	for range 3 {
		res, err := c.CallTool(context.Background(), toolCall("echo", json.RawMessage(`{"text":"sse"}`)), nil)
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "sse" {
			t.Fatalf("echo over SSE: %+v, %v", res, err)
		}
	}
	c.Close()
	awaitNoGoroutines(t)
}
