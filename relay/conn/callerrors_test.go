package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestNotReadyNamesTheStateOnce(t *testing.T) {
	c, r := start(t, testConfig("http://127.0.0.1:1/mcp"))
	failed := r.AwaitState(wire.StateFailed)
	_, err := c.CallTool(context.Background(), toolCall("echo", nil), nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != NotReady {
		t.Fatalf("err %v, want %s", err, NotReady)
	}
	if !strings.Contains(we.Message, "its last attempt failed") || !strings.Contains(we.Message, "connection refused") {
		t.Errorf("message %q does not say the server failed and why (state error %q)", we.Message, failed.Error)
	}
	if n := strings.Count(strings.ToLower(we.Message), "not connected"); n != 1 {
		t.Errorf("message %q says 'not connected' %d times", we.Message, n)
	}
}

func TestServerJSONRPCErrorIsAProtocolErrorWithItsCode(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	f.server.AddTool(&mcp.Tool{Name: "refuse", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32001, Message: "quota exceeded"}
		})
	c, _, _ := startReady(t, f)
	for _, via := range []string{"dashboard", "agent"} {
		var err error
		if via == "dashboard" {
			_, err = c.CallTool(context.Background(), toolCall("refuse", nil), nil)
			var we *Error
			if !errors.As(err, &we) || we.Code != Server || we.RPC == nil || we.RPC.Code != -32001 || we.Message != "the server answered with error -32001: quota exceeded" {
				t.Errorf("%s: %#v", via, err)
			}
			continue
		}
		// An agent gets the server's error as it is.
		_, err = c.CallTool(context.Background(), &mcp.CallToolParams{Name: "refuse", Arguments: map[string]any{}}, nil)
		var e *Error
		if !errors.As(err, &e) || e.Code != Server || e.RPC == nil || e.RPC.Code != -32001 || e.RPC.Message != "quota exceeded" {
			t.Errorf("%s: %#v", via, err)
		}
	}
}

func TestCallTimeoutSaysTheLimit(t *testing.T) {
	f := opsFixture(t, statelessEra)
	cfg := testConfig(f.url)
	cfg.CallTimeout = 300 * time.Millisecond
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)
	began := time.Now()
	_, err := c.CallTool(context.Background(), toolCall("block", json.RawMessage(`{}`)), nil)
	took := time.Since(began)
	var we *Error
	if !errors.As(err, &we) || we.Code != Timeout || !strings.Contains(we.Message, "300ms") {
		t.Fatalf("err %#v, want a timeout naming 300ms", err)
	}
	if took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("the call took %v", took)
	}
	// The session is fine: the next call works.
	if res, err := c.CallTool(context.Background(), toolCall("echo", json.RawMessage(`{"text":"still"}`)), nil); err != nil || res.Content[0].(*mcp.TextContent).Text != "still" {
		t.Errorf("after the timeout: %+v, %v", res, err)
	}
	// An agent's call has the same limit.
	_, err = c.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}}, nil)
	if !errors.As(err, &we) || we.Code != Timeout {
		t.Errorf("agent call: %#v, want a timeout", err)
	}
}

func TestResultLimitIsConfigurableAndSaid(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	const size = 2_000_000
	f.server.AddTool(&mcp.Tool{Name: "big", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("y", size)}}}, nil
		})
	cfg := testConfig(f.url)
	cfg.MaxResultBytes = 1 << 20
	small, r := start(t, cfg)
	r.AwaitState(wire.StateReady)
	_, err := small.CallTool(context.Background(), toolCall("big", nil), nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != TooLarge || !strings.Contains(we.Message, "1048576") {
		t.Fatalf("err %#v, want too large naming the limit", err)
	}
	// The default limit takes a 2 MB result whole.
	c, _, _ := startReady(t, f)
	res, err := c.CallTool(context.Background(), toolCall("big", nil), nil)
	if err != nil || len(res.Content) != 1 || len(res.Content[0].(*mcp.TextContent).Text) != size {
		t.Fatalf("2 MB result: %v", err)
	}
}

// A result too large even to read fails its call alone: the connection
// stays, and the next call on it is answered.
func TestAnAnswerOverTheReadLimitFailsOnlyItsCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    era
		json bool // the server answers with JSON rather than an event stream
	}{
		{"event stream, " + legacyEra.name, legacyEra, false},
		{"event stream, " + statelessEra.name, statelessEra, false},
		{"json, " + legacyEra.name, legacyEra, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.e, nil)
			f.server.AddTool(&mcp.Tool{Name: "huge", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("y", maxMessageBytes+1)}}}, nil
				})
			addEcho(f.server)
			if tc.json {
				f.stop()
				f.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server },
					&mcp.StreamableHTTPOptions{Stateless: tc.e.stateless, JSONResponse: true})
				f.restart()
			}
			c, r, _ := startReady(t, f)
			states := len(r.All())
			_, err := c.CallTool(context.Background(), toolCall("huge", nil), nil)
			var we *Error
			if !errors.As(err, &we) || we.Code != TooLarge || we.Message != fmt.Sprintf("the result is over the relay's limit of %d bytes", wire.MaxResultBytes) {
				t.Fatalf("err %#v, want too large naming the limit", err)
			}
			res, err := c.CallTool(context.Background(), toolCall("echo", json.RawMessage(`{"text":"still here"}`)), nil)
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "still here" {
				t.Fatalf("the next call: %v", err)
			}
			for _, s := range r.All()[states:] {
				if s.State != wire.StateReady {
					t.Errorf("the connection went %s", s.State)
				}
			}
		})
	}
}

// A server that quotes the key it refused does not show it to the person.
func TestAnErrorQuotingAHeaderValueIsMasked(t *testing.T) {
	f := newFixture(t, legacyEra, nil)
	f.server.AddTool(&mcp.Tool{Name: "refuse", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32001, Message: "key k-secret-9 has no quota"}
		})
	cfg := testConfig(f.url)
	cfg.Headers = map[string]string{"X-Api-Key": "k-secret-9"}
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)
	_, err := c.CallTool(context.Background(), toolCall("refuse", nil), nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != Server || strings.Contains(we.Message, "k-secret-9") || !strings.Contains(we.Message, "has no quota") {
		t.Errorf("error %#v", err)
	}
}
