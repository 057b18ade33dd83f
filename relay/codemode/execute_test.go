package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// text is a tool result of one text.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// fixtureServers are two servers: files (list, size, fail, broken) and
// "People & Owners" (owner, with structured content).
func fixtureServers() []Server {
	return []Server{
		{Name: "files", Tools: []Tool{
			{Name: "list", Call: func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
				return text("a.txt\nb.txt"), nil
			}},
			{Name: "size", Call: func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
				var a struct{ Path string }
				json.Unmarshal(args, &a)
				return text(map[string]string{"a.txt": "10", "b.txt": "20"}[a.Path]), nil
			}},
			{Name: "fail", Call: func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk on fire"}}}, nil
			}},
			{Name: "broken", Call: func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
				return nil, errors.New("this agent key may not use that")
			}},
		}},
		{Name: "People & Owners", Tools: []Tool{
			{Name: "owner-of", Call: func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
				var a struct{ Path string }
				json.Unmarshal(args, &a)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}},
					StructuredContent: map[string]any{"path": a.Path, "owner": "ada"}}, nil
			}},
		}},
	}
}

func run(t *testing.T, code string, l Limits) Result {
	t.Helper()
	return Execute(context.Background(), fixtureServers(), code, l)
}

func TestAProgramCallsToolsOfTwoServersAndReturnsJSON(t *testing.T) {
	res := run(t, `
		const names = (await files.list()).split("\n");
		const out = [];
		for (const n of names) {
			const size = Number(await files.size({path: n}));
			const o = await people_owners["owner-of"]({path: n});
			console.log("checked", n, {size});
			out.push({name: n, size, owner: o.owner});
		}
		return out;`, Limits{})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if want := `[{"name":"a.txt","size":10,"owner":"ada"},{"name":"b.txt","size":20,"owner":"ada"}]`; string(res.Value) != want {
		t.Errorf("value %s, want %s", res.Value, want)
	}
	if want := []string{`checked a.txt {"size":10}`, `checked b.txt {"size":20}`}; strings.Join(res.Log, "|") != strings.Join(want, "|") {
		t.Errorf("log %q, want %q", res.Log, want)
	}
	if res.Calls != 5 {
		t.Errorf("%d calls, want 5", res.Calls)
	}
}

func TestToolErrorsAreCatchableAndThrownErrorsSayTheLine(t *testing.T) {
	res := run(t, `
		const seen = [];
		try { await files.fail(); } catch (e) { seen.push(e.message); }
		try { await files.broken(); } catch (e) { seen.push(e.message); }
		try { await files.size("not an object"); } catch (e) { seen.push(e.message); }
		return seen;`, Limits{})
	want := `["fail: disk on fire","broken: this agent key may not use that","size: the argument must be an object of the tool's arguments"]`
	if res.Error != "" || string(res.Value) != want {
		t.Errorf("value %s, error %q; want %s", res.Value, res.Error, want)
	}

	res = run(t, "const a = 1;\n\nthrow new Error(\"boom\");", Limits{})
	if res.Error != "Error: boom (line 3)" {
		t.Errorf("error %q, want the message and line 3", res.Error)
	}
	res = run(t, "const a = 1;\nawait files.fail();", Limits{})
	if res.Error != "Error: fail: disk on fire (line 2)" {
		t.Errorf("an uncaught tool error: %q, want its message and the call's line", res.Error)
	}
	res = run(t, "await files.list();\nnull.x;", Limits{})
	if !strings.HasPrefix(res.Error, "TypeError: ") || !strings.HasSuffix(res.Error, " (line 2)") {
		t.Errorf("an error after an await: %q, want a TypeError on line 2", res.Error)
	}
	for code, want := range map[string]string{
		`throw "plain";`:                  `the program threw "plain"`,
		`throw {code: 7};`:                `the program threw {"code":7}`,
		`throw undefined;`:                `the program threw nothing`,
		`const a = {}; a.a = a; throw a;`: `the program threw a value that is not JSON`,
	} {
		if res := run(t, code, Limits{}); res.Error != want {
			t.Errorf("%s: error %q, want %q", code, res.Error, want)
		}
	}
	if res = run(t, "return nothing_here.x;", Limits{}); !strings.Contains(res.Error, "ReferenceError") {
		t.Errorf("a server outside the scope: error %q, want a ReferenceError", res.Error)
	}
	if res = run(t, "return (;", Limits{}); !strings.HasPrefix(res.Error, "syntax error: ") {
		t.Errorf("error %q, want a syntax error", res.Error)
	}
	if res = run(t, "files.list();", Limits{}); res.Error != "" || string(res.Value) != "null" {
		t.Errorf("returning nothing: %s, %q; want null", res.Value, res.Error)
	}
}

func TestCallsRunAtMostConcurrentAtOnce(t *testing.T) {
	var now, most atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	slow := Tool{Name: "slow", Call: func(ctx context.Context, _ json.RawMessage) (*mcp.CallToolResult, error) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		started <- struct{}{}
		<-release
		now.Add(-1)
		return text("ok"), nil
	}}
	go func() {
		// Let two in, then release all: a third could only start if the
		// limit let it.
		<-started
		<-started
		close(release)
	}()
	res := Execute(context.Background(), []Server{{Name: "s", Tools: []Tool{slow}}},
		`return (await Promise.all([1,2,3,4,5,6].map(() => s.slow()))).length;`, Limits{Concurrent: 2})
	if res.Error != "" || string(res.Value) != "6" {
		t.Fatalf("%s, %q", res.Value, res.Error)
	}
	if most.Load() != 2 {
		t.Errorf("%d calls ran at once, want 2", most.Load())
	}
}

func TestEachLimitEndsTheProgramAndSaysWhich(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		limits     Limits
		want       string
	}{
		{"wall time", `while (true) {}`, Limits{Wall: 200 * time.Millisecond}, "the program ran longer than 200ms"},
		{"tool calls", `for (;;) await files.list();`, Limits{Calls: 20}, "the program made more than 20 tool calls"},
		{"tool calls not awaited", `for (;;) files.list();`, Limits{Calls: 20}, "the program made more than 20 tool calls"},
		{"log", `for (;;) console.log("x".repeat(100));`, Limits{OutputBytes: 10 << 10}, "the output is over 10240 bytes"},
		{"return value", `return "x".repeat(20000);`, Limits{OutputBytes: 10 << 10}, "the output is over 10240 bytes"},
		{"recursion", `function f(n) { return f(n + 1) + 1; } return f(0);`, Limits{StackDepth: 200}, "the program recursed deeper than 200 calls"},
		{"heap", `const a = []; for (;;) a.push("x".repeat(1000) + a.length);`, Limits{HeapBytes: 64 << 20, Wall: 20 * time.Second}, "the program used more than 64 MiB of memory"},
		{"heap not in MiB", `const a = []; for (;;) a.push("x".repeat(1000) + a.length);`, Limits{HeapBytes: 20e6, Wall: 20 * time.Second}, "the program used more than 20000000 bytes of memory"},
		{"waiting on nothing", `await new Promise(() => {});`, Limits{}, "the program waits for a promise that nothing will settle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.code, tc.limits)
			if res.Error != tc.want {
				t.Errorf("error %q, want %q", res.Error, tc.want)
			}
			if tc.limits.Calls > 0 && res.Calls != tc.limits.Calls {
				t.Errorf("%d calls, want the %d made", res.Calls, tc.limits.Calls)
			}
		})
	}
}

func TestCancellingEndsTheProgramAndItsCalls(t *testing.T) {
	sawEnd := make(chan struct{})
	entered := make(chan struct{})
	block := Tool{Name: "block", Call: func(ctx context.Context, _ json.RawMessage) (*mcp.CallToolResult, error) {
		close(entered)
		<-ctx.Done()
		close(sawEnd)
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	res := Execute(ctx, []Server{{Name: "s", Tools: []Tool{block}}}, `await s.block();`, Limits{})
	if res.Error != "the program was cancelled" {
		t.Errorf("error %q", res.Error)
	}
	select {
	case <-sawEnd:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's call was not cancelled")
	}
}

func TestAToolsResultIsMadeOfOwnPropertiesAsJSONParseWould(t *testing.T) {
	odd := Tool{Name: "odd", Call: func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"owner": "ada", "__proto__": map[string]any{"polluted": true}}}, nil
	}}
	res := Execute(context.Background(), []Server{{Name: "s", Tools: []Tool{odd}}}, `
		Object.defineProperty(Object.prototype, "owner", {set(v) { throw new Error("setter ran") }, configurable: true});
		const r = await s.odd();
		return [r.owner, r.polluted === undefined, Object.getPrototypeOf(r) === Object.prototype];`, Limits{})
	if want := `["ada",true,true]`; res.Error != "" || string(res.Value) != want {
		t.Errorf("value %s, error %q; want %s", res.Value, res.Error, want)
	}
}

func TestAToolsContentNotAllTextIsItsContentAsDeclared(t *testing.T) {
	mixed := Tool{Name: "mixed", Call: func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a chart"},
			&mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"},
		}}, nil
	}}
	res := Execute(context.Background(), []Server{{Name: "s", Tools: []Tool{mixed}}},
		`const c = await s.mixed(); return c.map(x => x.type + ":" + (x.text ?? x.mimeType));`, Limits{})
	if want := `["text:a chart","image:image/png"]`; res.Error != "" || string(res.Value) != want {
		t.Errorf("value %s, error %q; want %s", res.Value, res.Error, want)
	}
}

func TestAToolOfAnyNameIsAnOwnMethod(t *testing.T) {
	named := func(name string) Tool {
		return Tool{Name: name, Call: func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text(name), nil }}
	}
	res := Execute(context.Background(), []Server{{Name: "s", Tools: []Tool{named("__proto__"), named("constructor"), named("a b")}}},
		`return [await s["__proto__"](), await s.constructor(), await s["a b"](), Object.keys(s), Object.getPrototypeOf(s) === Object.prototype];`, Limits{})
	if want := `["__proto__","constructor","a b",["__proto__","constructor","a b"],true]`; res.Error != "" || string(res.Value) != want {
		t.Errorf("value %s, error %q; want %s", res.Value, res.Error, want)
	}
}

func TestTheCallersDeadlineIsTheWallTimeWhenSooner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	res := Execute(ctx, fixtureServers(), `while (true) {}`, Limits{})
	if !strings.HasPrefix(res.Error, "the program ran longer than 1") || !strings.HasSuffix(res.Error, "ms") {
		t.Errorf("error %q, want the caller's deadline as the wall time", res.Error)
	}
}

func TestCallsNotAwaitedRunToTheirEnd(t *testing.T) {
	var ran, cancelled atomic.Int32
	write := Tool{Name: "write", Call: func(ctx context.Context, _ json.RawMessage) (*mcp.CallToolResult, error) {
		ran.Add(1)
		if ctx.Err() != nil {
			cancelled.Add(1)
		}
		return text("ok"), nil
	}}
	res := Execute(context.Background(), []Server{{Name: "s", Tools: []Tool{write}}},
		`s.write({n: 1}).then(() => console.log("first")); s.write({n: 2}); return "done";`, Limits{Concurrent: 1})
	if res.Error != "" || string(res.Value) != `"done"` || res.Calls != 2 {
		t.Fatalf("%s, %q, %d calls", res.Value, res.Error, res.Calls)
	}
	if ran.Load() != 2 || cancelled.Load() != 0 {
		t.Errorf("%d calls ran, %d cancelled; want both run, none cancelled", ran.Load(), cancelled.Load())
	}
	if len(res.Log) != 1 || res.Log[0] != "first" {
		t.Errorf("log %q, want what the first call's callback logged", res.Log)
	}
}

func TestTamperingChangesNothingTheEngineDoes(t *testing.T) {
	res := run(t, `
		Object.prototype.toJSON = () => "x";
		JSON.stringify = () => "x";
		Array.prototype.push = null;
		Object.freeze = null;
		try { files.list = () => "forged"; } catch (e) {}
		try { files = {}; } catch (e) {}
		console.log({a: 1});
		return {a: [1], list: await files.list()};`, Limits{})
	if res.Error != "" || string(res.Value) != `{"a":[1],"list":"a.txt\nb.txt"}` {
		t.Errorf("value %s, error %q", res.Value, res.Error)
	}
	if len(res.Log) != 1 || res.Log[0] != `{"a":1}` {
		t.Errorf("log %q", res.Log)
	}
}

func BenchmarkExecuteTenCalls(b *testing.B) {
	servers := fixtureServers()
	b.ReportAllocs()
	for b.Loop() {
		res := Execute(context.Background(), servers, `
			const out = [];
			for (let i = 0; i < 10; i++) out.push(await files.size({path: "a.txt"}));
			return out;`, Limits{})
		if res.Error != "" {
			b.Fatal(res.Error)
		}
	}
}

func TestTheValueIsJSONAsJSONStringifyWouldWriteIt(t *testing.T) {
	res := run(t, `
		console.log(undefined, {x: 1}, [NaN]);
		return {b: 1, a: NaN, f() {}, u: undefined, arr: [undefined, () => 1, Infinity], d: new Date(0), s: "<&>", n: new Number(2)};`, Limits{})
	if want := `{"b":1,"a":null,"arr":[null,null,null],"d":"1970-01-01T00:00:00Z","s":"<&>","n":2}`; res.Error != "" || string(res.Value) != want {
		t.Errorf("value %s, error %q; want %s", res.Value, res.Error, want)
	}
	if want := `undefined {"x":1} [null]`; len(res.Log) != 1 || res.Log[0] != want {
		t.Errorf("log %q, want %q", res.Log, want)
	}
	for code, want := range map[string]string{
		`const a = {}; a.self = a; return a;`:              "the program returned a value that is not JSON: the value holds itself",
		`return {get x() { throw new Error("no") }};`:      "the program returned a value that could not be read: Error: no",
		`const a = []; a.length = 1e9; return a;`:          "the output is over 1024 bytes",
		`const a = {x: 1}; return [a, a, {y: a}];`:         "",
		`const a = {x: 1}; console.log(a, [a]); return 1;`: "",
	} {
		if res := run(t, code, Limits{OutputBytes: 1024}); res.Error != want {
			t.Errorf("%s: error %q, want %q", code, res.Error, want)
		}
	}
}

func TestTextIsTheValueOrTheErrorThenTheLog(t *testing.T) {
	r := Result{Value: json.RawMessage(`{"b":1,"a":[1]}`), Log: []string{"one", "two"}}
	if got, want := r.Text(), "{\n  \"b\": 1,\n  \"a\": [\n    1\n  ]\n}\n\nLog:\none\ntwo"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	r = Result{Value: json.RawMessage("null"), Error: "the program made more than 100 tool calls"}
	if got, want := r.Text(), "Error: the program made more than 100 tool calls"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}
