package conn

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

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
			if got := toolNames(ready.Tools); !slices.Equal(got, wantTools) {
				t.Errorf("tools %v, want %v", got, wantTools)
			}
			if len(ready.Prompts) != 5 || len(ready.Resources) != 5 || len(ready.Templates) != 3 {
				t.Errorf("got %d prompts, %d resources, %d templates; want 5, 5, 3", len(ready.Prompts), len(ready.Resources), len(ready.Templates))
			}
		})
	}
}

func TestListChangedUpdatesListsWithoutReconnecting(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f := fullFixture(t, e)
			_, r, _ := startReady(t, f)
			readyAt := len(r.all)

			addNamedTool(f.server, "second")
			r.await("with tool second", func(s wire.Server) bool {
				return slices.Equal(toolNames(s.Tools), []string{"echo", "second"})
			})
			f.server.RemoveTools("echo")
			r.await("without tool echo", func(s wire.Server) bool {
				return slices.Equal(toolNames(s.Tools), []string{"second"})
			})
			f.server.AddPrompt(&mcp.Prompt{Name: "another"}, nil)
			r.await("with prompt another", func(s wire.Server) bool { return len(s.Prompts) == 2 })
			f.server.AddResource(&mcp.Resource{URI: "test://new", Name: "new"}, nil)
			r.await("with resource test://new", func(s wire.Server) bool { return len(s.Resources) == 2 })

			for _, s := range r.all[readyAt:] {
				if s.State != wire.StateReady {
					t.Errorf("state %s after ready; want it to stay ready (saw %s)", s.State, r.summary())
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
	r.awaitState(wire.StateReady)

	hold.Store(true)
	addNamedTool(f.server, "b")
	<-changed.seen
	<-held // the rediscovery's listing has its answer [a b] and waits
	addNamedTool(f.server, "c")
	<-changed.seen // the notification for c has reached the client
	close(release)

	r.await("with tools a b c", func(s wire.Server) bool {
		return slices.Equal(toolNames(s.Tools), []string{"a", "b", "c"})
	})
}

func TestHostileServerIsCappedAndSanitized(t *testing.T) {
	f := newFixtureOf(t, statelessEra, &mcp.Implementation{Name: "evil\x1b[31m\nserver", Version: "1\u202e0"}, &mcp.ServerOptions{
		Instructions: "line one\r\nline\x00 two\u202e" + strings.Repeat("i", 3*maxInstructionsRunes),
	})
	addNamedTool(f.server, "bad\x07name")
	addNamedTool(f.server, "bidi\u202ename")
	mcp.AddTool(f.server, &mcp.Tool{Name: "ok", Title: "Ti\ttle\nnext", Description: strings.Repeat("d", 5*maxDescriptionRunes)},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	props := map[string]any{}
	for i := range 3000 {
		props[fmt.Sprintf("field%04d", i)] = map[string]any{"type": "string", "description": "a field of a schema far too large"}
	}
	f.server.AddTool(&mcp.Tool{Name: "huge_schema", InputSchema: map[string]any{"type": "object", "properties": props}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	f.server.AddPrompt(&mcp.Prompt{Name: "p\x00"}, nil)
	f.server.AddPrompt(&mcp.Prompt{Name: "bad_argument", Arguments: []*mcp.PromptArgument{{Name: "a\nb"}}}, nil)
	f.server.AddPrompt(&mcp.Prompt{Name: "good"}, nil)
	f.server.AddResource(&mcp.Resource{URI: "test://x\u202e", Name: "x"}, nil)
	f.server.AddResource(&mcp.Resource{URI: "test://fine", Name: "fine\x1b name"}, nil)

	_, _, ready := startReady(t, f)
	clean := func(what, s string, max int) {
		t.Helper()
		if utf8.RuneCountInString(s) > max || strings.ContainsFunc(s, func(r rune) bool {
			return r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
		}) {
			t.Errorf("%s not capped or sanitized: %.80q (%d runes)", what, s, utf8.RuneCountInString(s))
		}
	}
	clean("server name", ready.Info.Name, maxTitleRunes)
	if strings.Contains(ready.Info.Name, "\n") {
		t.Errorf("server name %q spans lines", ready.Info.Name)
	}
	clean("server version", ready.Info.Version, maxVersionRunes)
	clean("instructions", ready.Instructions, maxInstructionsRunes)
	if !strings.HasPrefix(ready.Instructions, "line one\nline two") || !strings.HasSuffix(ready.Instructions, "…") {
		t.Errorf("instructions %.40q…%q: want line breaks kept and a cut marked", ready.Instructions, ready.Instructions[len(ready.Instructions)-10:])
	}

	if got := toolNames(ready.Tools); !slices.Equal(got, []string{"huge_schema", "ok"}) {
		t.Errorf("tools %q, want the ones with usable names", got)
	}
	for _, tool := range ready.Tools {
		switch tool.Name {
		case "ok":
			clean("description", tool.Description, maxDescriptionRunes)
			if tool.Title != "Ti tle next" {
				t.Errorf("title %q", tool.Title)
			}
		case "huge_schema":
			if tool.InputSchema != nil {
				t.Errorf("a %d-byte input schema was relayed", len(tool.InputSchema))
			}
		}
	}
	if len(ready.Prompts) != 1 || ready.Prompts[0].Name != "good" {
		t.Errorf("prompts %+v, want only good", ready.Prompts)
	}
	if len(ready.Resources) != 1 || ready.Resources[0].URI != "test://fine" || ready.Resources[0].Name != "fine name" {
		t.Errorf("resources %+v", ready.Resources)
	}
}

func TestListsAreCappedInLength(t *testing.T) {
	f := newFixture(t, statelessEra, nil)
	for i := range maxListItems + 1 {
		addNamedTool(f.server, fmt.Sprintf("tool%05d", i))
	}
	_, _, ready := startReady(t, f)
	if len(ready.Tools) != maxListItems {
		t.Errorf("%d tools kept, want %d", len(ready.Tools), maxListItems)
	}
}
