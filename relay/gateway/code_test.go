package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/codemode"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// startFilesUpstream serves "files": list (the names), size (of a name,
// structured) and secret.
func startFilesUpstream(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	sizes := map[string]int{"a.txt": 10, "b.txt": 20, "c.txt": 5}
	srv.AddTool(&mcp.Tool{Name: "list", Description: "List the files.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a.txt\nb.txt\nc.txt"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "size", Description: "The size of a file.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Name string }
			json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}, StructuredContent: map[string]any{"bytes": sizes[a.Name]}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "secret", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the secret"}}}, nil
		})
	return serveUpstream(t, srv)
}

func TestCodeModeRunsAProgramThroughTheOneCallPath(t *testing.T) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			r := newRelay(t, broker.Config{})
			files := r.add("alice", "Files", startFilesUpstream(t))
			fx := elicitfixture.Start(t, elicitfixture.Options{})
			asks := r.add("alice", "Asks", fx.URL())
			form := elicitfixture.Forms[0]
			r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "Claude", KeyID: "key1",
				Tools: []string{files + "__list", files + "__size", asks + "__form_" + form.Name}})
			a := r.connect("k1", gateway.CodePath, era)
			d := r.dashboard("alice")

			if got := slices.Sorted(mapKeys(a.toolNames(t))); !slices.Equal(got, []string{"execute", "search"}) {
				t.Fatalf("/mcp/code lists %q, want search and execute", got)
			}
			if out, _ := a.call(t, "search", map[string]any{"query": ""}); !strings.Contains(out, "files (Files): list, size") || strings.Contains(out, "secret") {
				t.Errorf("search lists:\n%s", out)
			}
			if out, _ := a.call(t, "search", map[string]any{"query": "size"}); !strings.Contains(out, "size(args: { name: string }): Promise<{ bytes: number }>;") {
				t.Errorf("search declares:\n%s", out)
			}

			program := `
				const names = (await files.list()).split("\n");
				const sizes = await Promise.all(names.map(n => files.size({name: n})));
				let denied = "";
				try { await files.secret(); } catch (e) { denied = e.name; }
				const answer = await asks["form_` + form.Name + `"]();
				console.log("asked:", answer.length > 0);
				return {largest: names[sizes.indexOf(sizes.reduce((a, b) => a.bytes > b.bytes ? a : b))], denied};`
			done := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": program}})
				if err != nil {
					res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
				}
				done <- res
			}()
			ask := d.ask()
			if ask.Agent != "Claude" || ask.Tool != "form_"+form.Name || ask.Kind != wire.AskForm {
				t.Errorf("the program's question: agent %q tool %q kind %q", ask.Agent, ask.Tool, ask.Kind)
			}
			d.answer(ask.ID, wire.ActionAccept, form.Example)
			res := <-done
			got := text(res)
			if res.IsError || !strings.Contains(got, `"largest": "b.txt"`) || !strings.Contains(got, `"denied": "TypeError"`) || !strings.Contains(got, "asked: true") {
				t.Fatalf("execute gave:\n%s", got)
			}
			for _, v := range form.Example {
				if s, ok := v.(string); ok && strings.Contains(got, s) {
					t.Errorf("the agent's result holds the person's answer %q:\n%s", s, got)
				}
			}

			// The activity: each call by code, under the agent, and the
			// program with its text.
			calls := r.recs.all()
			var byCode, programs int
			for _, c := range calls {
				switch {
				case c.ByCode && c.Agent == "Claude" && c.Outcome == wire.OutcomeOK:
					byCode++
				case c.Tool == "execute" && c.Server == "" && strings.Contains(c.Program, "files.list()") && c.Outcome == wire.OutcomeOK && c.Asked:
					programs++
				}
			}
			if byCode != 5 || programs != 1 {
				t.Errorf("activity: %d calls by code (want 5), %d programs (want 1): %+v", byCode, programs, calls)
			}
		})
	}
}

func TestAKeysToolModeChoosesWhatTheAggregateEndpointLists(t *testing.T) {
	r := newRelay(t, broker.Config{})
	files := r.add("alice", "Files", startFilesUpstream(t))
	for _, tc := range []struct {
		mode wire.ToolMode
		want []string
	}{
		{"", []string{files + "__list", files + "__secret", files + "__size"}},
		{wire.ToolModeCode, []string{"execute", "search"}},
		{wire.ToolModeBoth, []string{files + "__list", files + "__secret", files + "__size", "execute", "search"}},
	} {
		key := "k-" + string(tc.mode)
		r.keys.put(key, agentkeys.Grant{User: "alice", Agent: "A", KeyID: key, ToolMode: tc.mode})
		a := r.connect(key, gateway.Path, eras[0])
		if got, want := slices.Sorted(mapKeys(a.toolNames(t))), slices.Sorted(slices.Values(tc.want)); !slices.Equal(got, want) {
			t.Errorf("mode %q lists %q, want %q", tc.mode, got, tc.want)
		}
		// A server's own endpoint lists its tools whatever the mode.
		one := r.connect(key, gateway.ServerPath+files, eras[0])
		if got := slices.Sorted(mapKeys(one.toolNames(t))); !slices.Equal(got, []string{"list", "secret", "size"}) {
			t.Errorf("mode %q: the server's endpoint lists %q", tc.mode, got)
		}
	}
}

// A hostile program ends by its limit, and meanwhile the relay answers the
// same agent's other requests.
func TestAHostileProgramEndsByItsLimitAndTheRelayGoesOn(t *testing.T) {
	const wall = 5 * time.Second
	r := newRelayWith(t, session.Config{}, gateway.Config{CodeLimits: codemode.Limits{Wall: wall}})
	files := r.add("alice", "Files", startFilesUpstream(t))
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "A", KeyID: "key1", ToolMode: wire.ToolModeBoth})
	a := r.connect("k1", gateway.Path, eras[0])
	done := make(chan *mcp.CallToolResult, 1)
	start := time.Now()
	go func() {
		res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": "while (true) {}"}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	// A second runs beside it; a third at once is refused.
	second := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": "while (true) {}"}})
		second <- res
	}()
	r.dashboard("alice").Until("two programs running", func(v store.View) bool {
		n := 0
		for _, c := range v.Snapshot.AgentCalls {
			if c.Tool == "execute" && c.Outcome == wire.OutcomeRunning {
				n++
			}
		}
		return n == 2
	})
	if out, isErr := a.call(t, "execute", map[string]any{"code": "return 1"}); !isErr || !strings.Contains(out, "this key runs 2 programs already") {
		t.Errorf("a third program at once: %q", out)
	}
	for range 5 {
		if out, isErr := a.call(t, files+"__list", nil); isErr || !strings.Contains(out, "a.txt") {
			t.Fatalf("a call while the program spins: %q", out)
		}
	}
	if elapsed := time.Since(start); elapsed >= wall {
		t.Errorf("five calls beside the program took %v, as long as its limit", elapsed)
	}
	for _, res := range []*mcp.CallToolResult{<-done, <-second} {
		if got := text(res); !res.IsError || !strings.Contains(got, "the program ran longer than 5s") {
			t.Errorf("the program ended with %q", got)
		}
	}
}

func mapKeys[V any](m map[string]V) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The go-sdk's messages about an agent's session say so: they are not
// about the person's servers.
func TestAgentSessionsAreNamedAsSuchInTheLog(t *testing.T) {
	var buf lockedBuffer
	r := newRelayWith(t, session.Config{}, gateway.Config{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "A", KeyID: "key1"})
	r.connect("k1", gateway.Path, eras[0])
	log := buf.String()
	if !strings.Contains(log, `msg="agent session: server session connected"`) || !strings.Contains(log, "key=key1") {
		t.Errorf("the log of an agent's session:\n%s", log)
	}
	if strings.Contains(log, `msg="server session connected"`) {
		t.Errorf("an agent's session is logged as a server's:\n%s", log)
	}
}

// lockedBuffer is a bytes.Buffer for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// What a view lists is one person's: no cache may share it. Caching hints
// are of 2026-07-28; an agent of an earlier era gets none.
func TestAViewsListsAreCachedPrivately(t *testing.T) {
	r := newRelay(t, broker.Config{})
	r.add("alice", "Files", startFilesUpstream(t))
	r.keys.put("k1", agentkeys.Grant{User: "alice", Agent: "A", KeyID: "key1"})
	for _, era := range eras {
		a := r.connect("k1", gateway.Path, era)
		a.toolNames(t)
		got := a.wire.received()
		if era >= "2026-07-28" && (!strings.Contains(got, `"cacheScope":"private"`) || strings.Contains(got, `"cacheScope":"public"`)) {
			t.Errorf("%s: the agent received %s", era, got)
		}
		if era < "2026-07-28" && strings.Contains(got, `"cacheScope"`) {
			t.Errorf("%s: the agent received caching hints: %s", era, got)
		}
	}
}
