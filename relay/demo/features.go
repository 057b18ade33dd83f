package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of slow_count.
const (
	maxCount         = 100
	defaultCountStep = 500 * time.Millisecond
	maxCountStep     = 5 * time.Second
)

// Names of the tools that come and go.
const bonusTool = "bonus"

// Tools the demo model calls.
const (
	// EchoTool returns the text it is sent.
	EchoTool = "echo"
	// GreetTool asks the person's name with a form and greets them.
	GreetTool = "greet"
)

// Resources of the demo server.
const (
	readmeURI     = "demo://readme"
	configURI     = "demo://config"
	notesTemplate = "demo://notes/{name}"
	notesPrefix   = "demo://notes/"
	readme        = "# Switchboard demo\n\nThis server exists to be looked at. Its tools:\n\n" +
		"- **echo** returns what you send.\n- **greet** asks your name with a form, then greets you.\n" +
		"- **add** adds two numbers.\n" +
		"- **time** tells the time in a time zone.\n- **slow_count** counts slowly, reporting progress.\n" +
		"- **toggle_bonus_tool** adds or removes the **bonus** tool.\n"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type addResult struct {
	Sum float64 `json:"sum" jsonschema:"a plus b"`
}

type timeArgs struct {
	Zone string `json:"zone,omitempty" jsonschema:"an IANA time zone such as Europe/Paris; UTC when empty"`
}

type countArgs struct {
	N       int `json:"n" jsonschema:"how far to count, 1 to 100"`
	DelayMS int `json:"delay_ms,omitempty" jsonschema:"milliseconds between numbers, at most 5000; 500 when empty"`
}

// addTools adds the demo tools to server.
func addTools(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: EchoTool, Title: "Echo", Description: "Returns the text you send."},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return textResult(a.Text), nil, nil
		})
	// greet changes nothing: the chat runs it without asking first, so
	// that the demo model's turn shows its question at once.
	server.AddTool(&mcp.Tool{Name: GreetTool, Title: "Greet", Description: "Asks your name with a form, then greets you.",
		InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, greet)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Title: "Add", Description: "Adds two numbers.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, addResult, error) {
			return nil, addResult{Sum: a.A + a.B}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "time", Title: "Time", Description: "Tells the current time in an IANA time zone."},
		func(_ context.Context, _ *mcp.CallToolRequest, a timeArgs) (*mcp.CallToolResult, any, error) {
			zone := a.Zone
			if zone == "" {
				zone = "UTC"
			}
			loc, err := time.LoadLocation(zone)
			if err != nil {
				res := textResult(fmt.Sprintf("Unknown time zone %q. Try Europe/Paris or America/New_York.", zone))
				res.IsError = true
				return res, nil, nil
			}
			return textResult(time.Now().In(loc).Format("Monday 2 January 2006, 15:04:05 MST")), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "slow_count", Title: "Slow count",
		Description: "Counts from 1 to n, one number at a time, reporting progress. Cancel it whenever you like."},
		slowCount)
	var toggle bonusToggle
	mcp.AddTool(server, &mcp.Tool{Name: "toggle_bonus_tool", Title: "Toggle the bonus tool",
		Description: "Adds the bonus tool, or removes it if it is there: the tool list changes."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			if toggle.flip(server) {
				return textResult("The bonus tool is here."), nil, nil
			}
			return textResult("The bonus tool is gone."), nil, nil
		})
}

// slowCount counts to n with a pause between numbers, sending progress when
// the caller asked for it, until done or cancelled.
func slowCount(ctx context.Context, req *mcp.CallToolRequest, a countArgs) (*mcp.CallToolResult, any, error) {
	if a.N < 1 || a.N > maxCount {
		return nil, nil, fmt.Errorf("n must be between 1 and %d", maxCount)
	}
	step := defaultCountStep
	if a.DelayMS > 0 {
		step = min(time.Duration(a.DelayMS)*time.Millisecond, maxCountStep)
	}
	token := req.Params.GetProgressToken()
	tick := time.NewTicker(step)
	defer tick.Stop()
	for i := 1; i <= a.N; i++ {
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-tick.C:
		}
		if token == nil {
			continue
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(i), Total: float64(a.N), Message: fmt.Sprintf("%d of %d", i, a.N),
		})
		if err != nil {
			return nil, nil, fmt.Errorf("report progress: %w", err)
		}
	}
	return textResult(fmt.Sprintf("Counted to %d.", a.N)), nil, nil
}

// bonusToggle adds and removes the bonus tool.
type bonusToggle struct {
	mu      sync.Mutex
	present bool
}

// flip adds the bonus tool if it is absent, removes it otherwise, and
// reports whether it is now present.
func (b *bonusToggle) flip(server *mcp.Server) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.present {
		server.RemoveTools(bonusTool)
	} else {
		mcp.AddTool(server, &mcp.Tool{Name: bonusTool, Title: "Bonus", Description: "Appears and disappears with toggle_bonus_tool."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return textResult("You found the bonus tool."), nil, nil
			})
	}
	b.present = !b.present
	return b.present
}

// addPrompts adds the summarize prompt.
func addPrompts(server *mcp.Server) {
	server.AddPrompt(&mcp.Prompt{
		Name:        "summarize",
		Title:       "Summarize",
		Description: "Asks for a summary of a text.",
		Arguments: []*mcp.PromptArgument{
			{Name: "text", Title: "Text", Description: "The text to summarize.", Required: true},
			{Name: "style", Title: "Style", Description: "brief, detailed or bullet points; brief when empty."},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text := strings.TrimSpace(req.Params.Arguments["text"])
		if text == "" {
			return nil, fmt.Errorf("the text argument is required")
		}
		style := req.Params.Arguments["style"]
		if style == "" {
			style = "brief"
		}
		return &mcp.GetPromptResult{
			Description: "A " + style + " summary",
			Messages: []*mcp.PromptMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: fmt.Sprintf("Summarize the following text. Style: %s.\n\n%s", style, text)},
			}},
		}, nil
	})
}

// addResources adds the readme, the config and the notes template.
func addResources(server *mcp.Server) {
	server.AddResource(&mcp.Resource{URI: readmeURI, Name: "readme", Title: "Read me", MIMEType: "text/markdown",
		Description: "What this server offers.", Size: int64(len(readme))},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: readme}}}, nil
		})
	server.AddResource(&mcp.Resource{URI: configURI, Name: "config", Title: "Configuration", MIMEType: "application/json",
		Description: "The demo server's settings."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			b, err := json.MarshalIndent(map[string]any{
				"name": ServerName, "version": serverVersion, "maxCount": maxCount, "bonusTool": bonusTool,
			}, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("encode config: %w", err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
		})
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: notesTemplate, Name: "notes", Title: "Notes",
		Description: "A note by name.", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			name := strings.TrimPrefix(req.Params.URI, notesPrefix)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: req.Params.URI, MIMEType: "text/plain", Text: fmt.Sprintf("Notes on %s: nothing written yet.", name),
			}}}, nil
		})
}

// textResult is a tool result of one text.
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
