package conn

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// fullFixture serves a tool, a prompt, a resource and a template.
func fullFixture(t *testing.T, e era) *fixture {
	f := newFixture(t, e, &mcp.ServerOptions{Instructions: "Use echo.\nThen rest."})
	addEcho(f.server)
	f.server.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello " + r.Params.Arguments["who"]}}}}, nil
		})
	f.server.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
		})
	f.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://notes/{name}", Name: "note"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Blob: []byte{0, 1, 2}}}}, nil
		})
	return f
}

func TestConnReachesReadyWithEveryList(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := fullFixture(t, e)
			_, r, ready := startReady(t, f)

			var states []wire.ServerState // until ready
			for _, s := range r.All() {
				if states = append(states, s.State); s.State == wire.StateReady {
					break
				}
			}
			want := []wire.ServerState{wire.StateConnecting, wire.StateConnected, wire.StateDiscovering, wire.StateReady}
			if !slices.Equal(states, want) {
				t.Errorf("states %v, want %v", states, want)
			}
			init := ready.Init
			if init == nil || init.ServerInfo == nil || init.ServerInfo.Name != "fixture" || init.ServerInfo.Version != "1.2.3" {
				t.Fatalf("initialize result %+v", init)
			}
			if init.ProtocolVersion != e.protocol {
				t.Errorf("protocol %q, want %q", init.ProtocolVersion, e.protocol)
			}
			if init.Instructions != "Use echo.\nThen rest." {
				t.Errorf("instructions %q", init.Instructions)
			}
			if got := toolNames(ready.Lists.Tools); !slices.Equal(got, []string{"echo"}) {
				t.Errorf("tools %v", got)
			}
			if ready.Lists.Tools[0].InputSchema == nil || ready.Lists.Tools[0].Description != "Echo text." {
				t.Errorf("tool %+v", ready.Lists.Tools[0])
			}
			if len(ready.Lists.Prompts) != 1 || ready.Lists.Prompts[0].Name != "greet" || len(ready.Lists.Prompts[0].Arguments) != 1 || !ready.Lists.Prompts[0].Arguments[0].Required {
				t.Errorf("prompts %+v", ready.Lists.Prompts)
			}
			if len(ready.Lists.Resources) != 1 || ready.Lists.Resources[0].URI != "test://readme" || ready.Lists.Resources[0].MIMEType != "text/plain" {
				t.Errorf("resources %+v", ready.Lists.Resources)
			}
			if len(ready.Lists.Templates) != 1 || ready.Lists.Templates[0].URITemplate != "test://notes/{name}" {
				t.Errorf("templates %+v", ready.Lists.Templates)
			}
		})
	}
}

func TestConnListsOnlyAdvertisedCapabilities(t *testing.T) {
	f := newFixture(t, statelessEra, nil)
	addEcho(f.server)
	c, _, ready := startReady(t, f)
	if len(ready.Lists.Tools) != 1 || ready.Lists.Prompts != nil || ready.Lists.Resources != nil || ready.Lists.Templates != nil {
		t.Errorf("lists %+v", ready)
	}
	if _, err := c.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "any", Arguments: nil}); err == nil || errCode(t, err) != NotFound {
		t.Errorf("prompt of a server without prompts: %v, want %s", err, NotFound)
	}
}

func TestConnToUnreachableServerFailsWithSanitizedError(t *testing.T) {
	_, r := start(t, testConfig("http://127.0.0.1:1/mcp"))
	failed := r.AwaitState(wire.StateFailed)
	if !strings.HasPrefix(failed.Error, "connect: ") || !strings.Contains(failed.Error, "connection refused") {
		t.Errorf("error %q", failed.Error)
	}
	if strings.Contains(failed.Error, "http://") {
		t.Errorf("error %q names the URL", failed.Error)
	}
	if utf8.RuneCountInString(failed.Error) > wire.MaxErrorMessage || strings.ContainsFunc(failed.Error, unicode.IsControl) {
		t.Errorf("error %q is not sanitized", failed.Error)
	}
	// It keeps trying.
	r.AwaitState(wire.StateConnecting)
	r.AwaitState(wire.StateFailed)
}

func TestRetrySkipsTheBackoff(t *testing.T) {
	cfg := testConfig("http://127.0.0.1:1/mcp")
	cfg.RetryMin, cfg.RetryMax = time.Hour, time.Hour
	c, r := start(t, cfg)
	r.AwaitState(wire.StateFailed)
	c.Retry()
	r.AwaitState(wire.StateConnecting)
	r.AwaitState(wire.StateFailed)
}

func TestRetryReplacesALiveSession(t *testing.T) {
	f := fullFixture(t, statelessEra)
	c, r, _ := startReady(t, f)
	c.Retry()
	r.AwaitState(wire.StateConnecting)
	r.AwaitState(wire.StateReady)
}

func TestConnFailsWhenServerStopsAndRecoversWhenItReturns(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := fullFixture(t, e)
			c, r, _ := startReady(t, f)

			f.stop()
			failed := r.AwaitState(wire.StateFailed)
			if failed.Error == "" || len(failed.Lists.Tools) != 1 {
				t.Errorf("failed state %+v: want an error and the last known tools", failed)
			}
			if _, err := c.CallTool(context.Background(), toolCall("echo", nil), nil); err == nil || errCode(t, err) != NotReady {
				t.Errorf("call while failed: %v, want %s", err, NotReady)
			}

			f.restart()
			ready := r.AwaitState(wire.StateReady)
			if ready.Error != "" || len(ready.Lists.Tools) != 1 {
				t.Errorf("ready again %+v", ready)
			}
			res, err := c.CallTool(context.Background(), toolCall("echo", []byte(`{"text":"back"}`)), nil)
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "back" {
				t.Errorf("call after recovery: %+v, %v", res, err)
			}
		})
	}
}

func TestProbeAnswersInBothEras(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := fullFixture(t, e)
			c, _, _ := startReady(t, f)
			s, err := c.current()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.probe(s, c.probeTimeout()); err != nil {
				t.Errorf("probe of a live server: %v", err)
			}
			f.stop()
			if err := c.probe(s, c.probeTimeout()); err == nil {
				t.Error("probe of a stopped server succeeded")
			}
		})
	}
}

func TestCloseStopsEverything(t *testing.T) {
	f := fullFixture(t, statelessEra)
	c, r, _ := startReady(t, f)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	reported := len(r.All())
	awaitNoGoroutines(t)
	addNamedTool(f.server, "late") // would be a list change
	c.Retry()
	if _, err := c.CallTool(context.Background(), toolCall("echo", nil), nil); err == nil || errCode(t, err) != NotReady {
		t.Errorf("call after close: %v", err)
	}
	if len(r.All()) != reported {
		t.Errorf("%d states reported after Close", len(r.All())-reported)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseDuringConnectLeaksNothing(t *testing.T) {
	// A server that accepts connections and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- nc
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	})
	sdkBefore := sdkGoroutines()

	c, r := start(t, testConfig("http://"+ln.Addr().String()+"/mcp"))
	r.AwaitState(wire.StateConnecting)
	select {
	case <-accepted:
	case <-time.After(waitFor):
		t.Fatal("the connection never dialed")
	}
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(waitFor):
		t.Fatal("Close blocked during connect")
	}
	awaitNoGoroutines(t)
	deadline := time.Now().Add(waitFor)
	for sdkGoroutines() > sdkBefore {
		if time.Now().After(deadline) {
			t.Fatalf("%d go-sdk goroutines left, %d before", sdkGoroutines(), sdkBefore)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline: goroutine exit has no event
	}
}

// sdkGoroutines counts goroutines in go-sdk code.
func sdkGoroutines() int {
	return countGoroutines(func(lines []string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "modelcontextprotocol/go-sdk") })
	})
}
