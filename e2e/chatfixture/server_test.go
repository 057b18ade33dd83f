package chatfixture

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect connects a go-sdk client that answers every form with answer.
func connect(t *testing.T, ctx context.Context, url string, answer map[string]any) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Message != AskMessage {
				t.Errorf("asked %q, want %q", req.Params.Message, AskMessage)
			}
			if answer == nil {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: answer}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v, %v", name, res, err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestToolsAskLookUpAndCount(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := connect(t, ctx, s.URL(), map[string]any{AskField: "acct-7Q"})

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{}
	for _, tool := range tools.Tools {
		readOnly[tool.Name] = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	}
	if !readOnly[ToolAccount] || !readOnly[ToolWeather] || readOnly[ToolPurge] || len(readOnly) != 3 {
		t.Errorf("read-only hints %v", readOnly)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(AskSchema), &schema); err != nil {
		t.Fatalf("the form's schema is not JSON: %v", err)
	}

	if got := call(t, ctx, cs, ToolAccount, map[string]any{}); got != AccountRecord {
		t.Errorf("account_lookup answered %q", got)
	}
	if got := s.Answers(); len(got) != 1 || got[0][AskField] != "acct-7Q" {
		t.Errorf("answers %v", got)
	}
	if got := call(t, ctx, cs, ToolWeather, map[string]any{"city": "Lyon"}); got != Weather("Lyon") {
		t.Errorf("city_weather answered %q", got)
	}
	for range 2 {
		if got := call(t, ctx, cs, ToolPurge, map[string]any{}); got != Purged {
			t.Errorf("purge_reports answered %q", got)
		}
	}
	if n := s.Purges(); n != 2 {
		t.Errorf("%d purges, want 2", n)
	}

	declined := connect(t, ctx, s.URL(), nil)
	if got := call(t, ctx, declined, ToolAccount, map[string]any{}); got != NoAccount {
		t.Errorf("account_lookup answered %q to a decline", got)
	}
	if got := s.Answers(); len(got) != 1 {
		t.Errorf("a decline was recorded as an answer: %v", got)
	}
}
