package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A server that stops answering in the middle of an answer (it sent part
// of an event, then nothing, its connection open) fails that call with a
// timeout naming the limit, within it, and the connection answers the next
// call.
func TestAServerThatStopsMidAnswerTimesOutAndTheConnectionGoesOn(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := opsFixture(t, e)
			addNamedTool(f.server, "stall") // its answer is cut short below
			f.stop()
			inner := f.handler
			f.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if !bytes.Contains(body, []byte(`"name":"stall"`)) {
					inner.ServeHTTP(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
			f.restart()
			cfg := testConfig(f.url)
			cfg.CallTimeout = 300 * time.Millisecond
			c, r := start(t, cfg)
			r.AwaitState(wire.StateReady)
			began := time.Now()
			_, err := c.CallTool(context.Background(), toolCall("stall", nil), nil)
			took := time.Since(began)
			var we *Error
			if !errors.As(err, &we) || we.Code != Timeout || !strings.Contains(we.Message, "300ms") {
				t.Fatalf("err %#v, want a timeout naming 300ms", err)
			}
			if took > 5*time.Second {
				t.Errorf("the call took %v", took)
			}
			res, err := c.CallTool(context.Background(), toolCall("echo", json.RawMessage(`{"text":"still"}`)), nil)
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "still" {
				t.Fatalf("the next call: %+v, %v", res, err)
			}
		})
	}
}
