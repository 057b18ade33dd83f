package demo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolNames(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestDemoServerServesItsFeatures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url, stop, err := Start(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("url %s is not on loopback", url)
	}

	changed := make(chan struct{}, 1)
	progress := make(chan float64, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params.Progress
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != ServerName {
		t.Errorf("server info %+v", info)
	}

	checkToolCalls(t, ctx, cs, progress)
	checkBonusToolToggle(t, ctx, cs, changed)
	checkPromptAndResources(t, ctx, cs)
}

// checkToolCalls checks the demo's tool list and calls echo, add, time (in
// an unknown zone, answered with an isError result) and slow_count, which
// reports progress.
func checkToolCalls(t *testing.T, ctx context.Context, cs *mcp.ClientSession, progress <-chan float64) {
	want := []string{"add", "echo", "greet", "slow_count", "time", "toggle_bonus_tool"}
	if got := toolNames(t, ctx, cs); !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || text(t, res) != "hi" {
		t.Errorf("echo: %v", err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3.5}})
	if err != nil || res.StructuredContent.(map[string]any)["sum"] != 5.5 {
		t.Errorf("add: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "time", Arguments: map[string]any{"zone": "Nowhere/Atlantis"}})
	if err != nil || !res.IsError {
		t.Errorf("time in an unknown zone: %+v, %v; want an isError result", res, err)
	}
	params := &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"n": 3, "delay_ms": 1}}
	params.SetProgressToken("count")
	res, err = cs.CallTool(ctx, params)
	if err != nil || text(t, res) != "Counted to 3." {
		t.Errorf("slow_count: %+v, %v", res, err)
	}
	select {
	case <-progress:
	case <-ctx.Done():
		t.Error("slow_count reported no progress")
	}
}

// checkBonusToolToggle checks that toggle_bonus_tool adds the bonus tool and
// says so with tools/list_changed.
func checkBonusToolToggle(t *testing.T, ctx context.Context, cs *mcp.ClientSession, changed <-chan struct{}) {
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "toggle_bonus_tool"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed after toggle_bonus_tool")
	}
	if got := toolNames(t, ctx, cs); !slices.Contains(got, bonusTool) {
		t.Errorf("tools %v lack %s after the toggle", got, bonusTool)
	}
}

// checkPromptAndResources checks the demo's prompt and reads its resources.
func checkPromptAndResources(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"text": "Long text."}})
	if err != nil || len(prompt.Messages) != 1 {
		t.Errorf("summarize: %+v, %v", prompt, err)
	}
	for _, uri := range []string{readmeURI, configURI, "demo://notes/ideas"} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].Text == "" {
			t.Errorf("read %s: %+v, %v", uri, r, err)
		}
	}
}

// connect starts the demo server and connects a client with opts to it.
func connect(t *testing.T, opts *mcp.ClientOptions) (context.Context, *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	url, stop, err := Start(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

// answering is a client that answers greet's form with action and content,
// and counts the questions it got.
func answering(action string, content map[string]any, asked *[]string) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		*asked = append(*asked, r.Params.Message)
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}}
}

func TestGreetAsksTheNameWithAForm(t *testing.T) {
	for _, c := range []struct {
		action  string
		content map[string]any
		want    string
	}{
		{"accept", map[string]any{"name": "  Ann "}, "Hello, Ann!"},
		{"decline", nil, "You declined to give your name. Hello anyway!"},
		{"cancel", nil, "You closed the form without answering. Hello anyway!"},
	} {
		var asked []string
		ctx, cs := connect(t, answering(c.action, c.content, &asked))
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: GreetTool})
		if err != nil {
			t.Fatalf("%s: %v", c.action, err)
		}
		if got := text(t, res); got != c.want || res.IsError {
			t.Errorf("%s: greet said %q (isError %v), want %q", c.action, got, res.IsError, c.want)
		}
		if len(asked) != 1 || asked[0] != greetQuestion {
			t.Errorf("%s: the client was asked %q, want the question once", c.action, asked)
		}
	}
}

func TestGreetWithoutElicitationSaysSo(t *testing.T) {
	ctx, cs := connect(t, nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: GreetTool})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !strings.Contains(got, "elicitation is not supported") {
		t.Errorf("greet said %q to a client without elicitation", got)
	}
}
