package conn

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestConnFollowsPagination(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e, &mcp.ServerOptions{PageSize: 2})
			var wantTools []string
			for i := range 7 {
				name := fmt.Sprintf("tool%d", i)
				addNamedTool(f.server, name)
				wantTools = append(wantTools, name)
			}
			for i := range 5 {
				f.server.AddPrompt(&mcp.Prompt{Name: fmt.Sprintf("prompt%d", i)}, nil)
				f.server.AddResource(&mcp.Resource{URI: fmt.Sprintf("test://r%d", i), Name: "r"}, nil)
			}
			for i := range 3 {
				f.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: fmt.Sprintf("test://t%d/{x}", i), Name: "t"}, nil)
			}
			_, _, ready := startReady(t, f)
			if got := toolNames(ready.Lists.Tools); !slices.Equal(got, wantTools) {
				t.Errorf("tools %v, want %v", got, wantTools)
			}
			if len(ready.Lists.Prompts) != 5 || len(ready.Lists.Resources) != 5 || len(ready.Lists.Templates) != 3 {
				t.Errorf("got %d prompts, %d resources, %d templates; want 5, 5, 3", len(ready.Lists.Prompts), len(ready.Lists.Resources), len(ready.Lists.Templates))
			}
		})
	}
}

func TestListChangedUpdatesListsWithoutReconnecting(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := fullFixture(t, e)
			_, r, _ := startReady(t, f)
			readyAt := len(r.All())

			addNamedTool(f.server, "second")
			r.Await("with tool second", func(s State) bool {
				return slices.Equal(toolNames(listsOf(s).Tools), []string{"echo", "second"})
			})
			f.server.RemoveTools("echo")
			r.Await("without tool echo", func(s State) bool {
				return slices.Equal(toolNames(listsOf(s).Tools), []string{"second"})
			})
			f.server.AddPrompt(&mcp.Prompt{Name: "another"}, nil)
			r.Await("with prompt another", func(s State) bool { return len(listsOf(s).Prompts) == 2 })
			f.server.AddResource(&mcp.Resource{URI: "test://new", Name: "new"}, nil)
			r.Await("with resource test://new", func(s State) bool { return len(listsOf(s).Resources) == 2 })

			for _, s := range r.All()[readyAt:] {
				if s.State != wire.StateReady {
					t.Errorf("state %s after ready; want it to stay ready (saw %s)", s.State, r.Summary())
				}
			}
		})
	}
}

// logSignal is a slog handler that reports records with a given message.
type logSignal struct {
	message string
	seen    chan struct{}
}

func (h *logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (h *logSignal) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logSignal) WithGroup(string) slog.Handler            { return h }
func (h *logSignal) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.message {
		h.seen <- struct{}{}
	}
	return nil
}

// TestRelistAfterListChangedIsNotServedFromCache pins the race the go-sdk's
// SEP-2549 cache opens: a listing in flight when list_changed arrives puts
// its answer into the cache after the notification cleared it, and the
// rediscovery the notification asked for must not read that answer.
func TestRelistAfterListChangedIsNotServedFromCache(t *testing.T) {
	const hour = 3600 * 1000
	f := newFixture(t, statelessEra, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = hour },
	})
	addNamedTool(f.server, "a")
	held, release := make(chan struct{}), make(chan struct{})
	var hold atomic.Bool
	f.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" && hold.CompareAndSwap(true, false) {
				held <- struct{}{}
				<-release
			}
			return res, err
		}
	})
	changed := &logSignal{message: "mcp list changed", seen: make(chan struct{}, 10)}
	cfg := testConfig(f.url)
	cfg.Logger = slog.New(changed)
	_, r := start(t, cfg)
	r.AwaitState(wire.StateReady)

	hold.Store(true)
	addNamedTool(f.server, "b")
	<-changed.seen
	<-held // the rediscovery's listing has its answer [a b] and waits
	addNamedTool(f.server, "c")
	<-changed.seen // the notification for c has reached the client
	close(release)

	r.Await("with tools a b c", func(s State) bool {
		return slices.Equal(toolNames(listsOf(s).Tools), []string{"a", "b", "c"})
	})
}

// A connection keeps what a hostile server lists as it was sent: capping
// and sanitizing what a person sees is the edge's (relay/mcpwire); a
// connection drops only what it cannot hold (see TestListsAreCappedInLength).
func TestHostileListsPassAsTheServerSentThem(t *testing.T) {
	f := newFixtureOf(t, statelessEra, &mcp.Implementation{Name: "evil\x1b[31m\nserver", Version: "1\u202e0"}, &mcp.ServerOptions{
		Instructions: "line one\r\nline\x00 two\u202e",
	})
	addNamedTool(f.server, "bad\x07name")
	addNamedTool(f.server, "bidi\u202ename")
	f.server.AddPrompt(&mcp.Prompt{Name: "p\x00"}, nil)
	f.server.AddPrompt(&mcp.Prompt{Name: "bad_argument", Arguments: []*mcp.PromptArgument{{Name: "a\nb"}}}, nil)
	f.server.AddResource(&mcp.Resource{URI: "test://x\u202e", Name: "x"}, nil)
	f.server.AddResource(&mcp.Resource{URI: "test://fine", Name: "fine\x1b name"}, nil)

	_, _, ready := startReady(t, f)
	if info := ready.Init.ServerInfo; info.Name != "evil\x1b[31m\nserver" || info.Version != "1\u202e0" || ready.Init.Instructions != "line one\r\nline\x00 two\u202e" {
		t.Errorf("initialize result %+v, %q", info, ready.Init.Instructions)
	}
	if got := toolNames(ready.Lists.Tools); !slices.Equal(got, []string{"bad\x07name", "bidi\u202ename"}) {
		t.Errorf("tools %q", got)
	}
	if len(ready.Lists.Prompts) != 2 || len(ready.Lists.Resources) != 2 || ready.Lists.Resources[0].Name != "fine\x1b name" {
		t.Errorf("prompts %+v, resources %+v", ready.Lists.Prompts, ready.Lists.Resources)
	}
}

func TestListsAreCappedInLength(t *testing.T) {
	f := newFixture(t, statelessEra, nil)
	for i := range maxListItems + 1 {
		addNamedTool(f.server, fmt.Sprintf("tool%05d", i))
	}
	_, _, ready := startReady(t, f)
	if len(ready.Lists.Tools) != maxListItems {
		t.Errorf("%d tools kept, want %d", len(ready.Lists.Tools), maxListItems)
	}
}
