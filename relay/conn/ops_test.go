package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// opsFixture serves tools that exercise calls, for both eras.
func opsFixture(t *testing.T, e era) *fixture {
	f := fullFixture(t, e)
	mcp.AddTool(f.server, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("it broke")
	})
	f.server.AddTool(&mcp.Tool{Name: "protocol_error", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("bad\x1b[2J request")
		})
	type sum struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(f.server, &mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{ A, B int }) (*mcp.CallToolResult, sum, error) {
		return nil, sum{in.A + in.B}, nil
	})
	f.server.AddTool(&mcp.Tool{Name: "media", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")},
				&mcp.ResourceLink{URI: "test://readme", Name: "readme"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://e", MIMEType: "text/plain", Text: "embedded"}},
			}}, nil
		})
	f.server.AddTool(&mcp.Tool{Name: "huge", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", wire.MaxResultBytes)}}}, nil
		})
	f.server.AddTool(&mcp.Tool{Name: "block", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return f
}

func TestCallToolResults(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			c, _, _ := startReady(t, opsFixture(t, e))
			ctx := context.Background()
			for _, tc := range []struct {
				tool, args, want string // want: the result's content and structured content
			}{
				{"echo", `{"text":"hi"}`, `{"content":[{"type":"text","text":"hi"}]}`},
				{"add", `{"A":2,"B":3}`, `{"content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5}}`},
				{"media", `{}`, `{"content":[{"type":"image","mimeType":"image/png","data":"cG5n"},` +
					`{"type":"resource_link","uri":"test://readme","name":"readme"},` +
					`{"type":"resource","resource":{"uri":"test://e","mimeType":"text/plain","text":"embedded"}}]}`},
			} {
				res, err := c.CallTool(ctx, toolCall(tc.tool, json.RawMessage(tc.args)), nil)
				if err != nil {
					t.Fatalf("%s: %v", tc.tool, err)
				}
				b, _ := json.Marshal(struct {
					Content           []mcp.Content `json:"content"`
					StructuredContent any           `json:"structuredContent,omitempty"`
				}{res.Content, res.StructuredContent})
				if string(b) != tc.want {
					t.Errorf("%s: %s\nwant %s", tc.tool, b, tc.want)
				}
			}
			res, err := c.CallTool(ctx, toolCall("fail", nil), nil)
			if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "it broke") {
				t.Errorf("fail: %+v, %v; want an isError result", res, err)
			}
		})
	}
}

func TestCallToolErrors(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			c, _, _ := startReady(t, opsFixture(t, e))
			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			for _, tc := range []struct {
				name, tool string
				args       string
				ctx        context.Context
				code       Code
				message    string
			}{
				{name: "unknown tool", tool: "nope", code: NotFound, message: `"nope"`},
				{name: "array arguments", tool: "echo", args: `[1,2]`, code: BadRequest},
				{name: "string arguments", tool: "echo", args: `"text"`, code: BadRequest},
				{name: "malformed arguments", tool: "echo", args: `{"text":`, code: BadRequest},
				{name: "protocol error", tool: "protocol_error", code: Server, message: "the server answered with error 0: bad [2J request"},
				{name: "result too large", tool: "huge", code: TooLarge},
				{name: "cancelled", tool: "echo", ctx: cancelled, code: Cancelled},
			} {
				t.Run(tc.name, func(t *testing.T) {
					ctx := tc.ctx
					if ctx == nil {
						ctx = context.Background()
					}
					res, err := c.CallTool(ctx, toolCall(tc.tool, json.RawMessage(tc.args)), nil)
					if err == nil {
						t.Fatalf("result %+v, want a %s error", res, tc.code)
					}
					if code := errCode(t, err); code != tc.code {
						t.Errorf("code %s (%v), want %s", code, err, tc.code)
					}
					if !strings.Contains(err.Error(), tc.message) {
						t.Errorf("message %q lacks %q", err, tc.message)
					}
				})
			}
		})
	}
}

func TestCallToolCancelledWhileRunning(t *testing.T) {
	c, _, _ := startReady(t, opsFixture(t, statelessEra))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, toolCall("block", nil), nil)
	if err == nil || errCode(t, err) != Cancelled {
		t.Errorf("err %v, want %s", err, Cancelled)
	}
}

func TestCallToolForwardsProgress(t *testing.T) {
	const steps = 3
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e, nil)
			// The tool finishes once the client has seen every step: the
			// go-sdk hands notifications to the client asynchronously, so
			// steps sent right before the result may arrive after it, and a
			// call never reports progress after it returned.
			seen := make(chan struct{})
			f.server.AddTool(&mcp.Tool{Name: "progress", InputSchema: map[string]any{"type": "object"}},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					for i := 1; i <= steps; i++ {
						err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
							ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: steps, Message: fmt.Sprintf("step\n%d", i),
						})
						if err != nil {
							return nil, err
						}
					}
					select {
					case <-seen:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
				})
			c, _, _ := startReady(t, f)

			var got []mcp.ProgressNotificationParams
			res, err := c.CallTool(context.Background(), toolCall("progress", nil), func(p *mcp.ProgressNotificationParams) {
				if got = append(got, mcp.ProgressNotificationParams{Progress: p.Progress, Total: p.Total, Message: p.Message}); len(got) == steps {
					close(seen)
				}
			})
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "done" {
				t.Fatalf("progress: %+v, %v", res, err)
			}
			want := []mcp.ProgressNotificationParams{{Progress: 1, Total: 3, Message: "step\n1"}, {Progress: 2, Total: 3, Message: "step\n2"}, {Progress: 3, Total: 3, Message: "step\n3"}}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("progress %v, want %v", got, want)
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	const calls = 8
	f := newFixture(t, statelessEra, nil)
	arrived := make(chan struct{}, calls)
	all := make(chan struct{})
	var once sync.Once
	var n int
	var mu sync.Mutex
	type in struct {
		I int `json:"i"`
	}
	// Every call waits until all have arrived: they finish only if they run
	// at the same time.
	mcp.AddTool(f.server, &mcp.Tool{Name: "rendezvous"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		arrived <- struct{}{}
		mu.Lock()
		n++
		if n == calls {
			once.Do(func() { close(all) })
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.I)}}}, nil, nil
	})
	c, _, _ := startReady(t, f)

	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			res, err := c.CallTool(ctx, toolCall("rendezvous", json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))), nil)
			switch {
			case err != nil:
				errs <- err
			case res.Content[0].(*mcp.TextContent).Text != fmt.Sprint(i):
				errs <- fmt.Errorf("call %d answered %q", i, res.Content[0].(*mcp.TextContent).Text)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestGetPromptAndReadResource(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			c, _, _ := startReady(t, opsFixture(t, e))
			ctx := context.Background()

			p, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ada"}})
			if err != nil || len(p.Messages) != 1 || p.Messages[0].Role != "user" || p.Messages[0].Content.(*mcp.TextContent).Text != "Hello Ada" {
				t.Errorf("prompt: %+v, %v", p, err)
			}
			if _, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope", Arguments: nil}); err == nil || errCode(t, err) != NotFound {
				t.Errorf("unknown prompt: %v", err)
			}

			r, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://readme"})
			if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != "read me" || r.Contents[0].MIMEType != "text/plain" {
				t.Errorf("readme: %+v, %v", r, err)
			}
			r, err = c.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://notes/x"})
			if err != nil || len(r.Contents) != 1 || string(r.Contents[0].Blob) != "\x00\x01\x02" {
				t.Errorf("template read: %+v, %v", r, err)
			}
			_, err = c.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://missing"})
			var we *Error
			if !errors.As(err, &we) || we.Code != Server || we.RPC == nil || we.RPC.Code != -32602 || !strings.Contains(we.Message, "error -32602: Resource not found") {
				t.Errorf("missing resource: %#v, want a protocol error with the server's code and message", err)
			}
		})
	}
}

func TestOpsBeforeConnectingAreNotReady(t *testing.T) {
	c, r := start(t, testConfig("http://127.0.0.1:1/mcp"))
	r.AwaitState(wire.StateFailed)
	ctx := context.Background()
	_, err1 := c.CallTool(ctx, toolCall("echo", nil), nil)
	_, err2 := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: nil})
	_, err3 := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://readme"})
	for _, err := range []error{err1, err2, err3} {
		if err == nil || errCode(t, err) != NotReady {
			t.Errorf("err %v, want %s", err, NotReady)
		}
	}
}
