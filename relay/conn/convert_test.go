package conn

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestConvertToolLeavesOutOversizedParts(t *testing.T) {
	tool, ok := convertTool(&mcp.Tool{
		Name:         "t",
		InputSchema:  map[string]any{"type": "object", "description": strings.Repeat("s", maxSchemaBytes)},
		OutputSchema: map[string]any{"type": "object"},
		Annotations:  &mcp.ToolAnnotations{Title: "An\nnotated", ReadOnlyHint: true},
	})
	if !ok {
		t.Fatal("tool dropped")
	}
	if tool.InputSchema != nil {
		t.Errorf("oversized input schema kept (%d bytes)", len(tool.InputSchema))
	}
	if string(tool.OutputSchema) != `{"type":"object"}` {
		t.Errorf("output schema %s", tool.OutputSchema)
	}
	var a struct {
		Title        string `json:"title"`
		ReadOnlyHint bool   `json:"readOnlyHint"`
	}
	if err := json.Unmarshal(tool.Annotations, &a); err != nil || a.Title != "An notated" || !a.ReadOnlyHint {
		t.Errorf("annotations %s (%v)", tool.Annotations, err)
	}
}

func TestConvertPromptDropsPromptsWithUnusableArguments(t *testing.T) {
	var tooMany []*mcp.PromptArgument
	for range maxPromptArguments + 1 {
		tooMany = append(tooMany, &mcp.PromptArgument{Name: "a"})
	}
	for _, p := range []*mcp.Prompt{
		{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "ok"}, {Name: "bad\x00"}}},
		{Name: "p", Arguments: []*mcp.PromptArgument{nil}},
		{Name: "p", Arguments: tooMany},
		nil,
	} {
		if got, ok := convertPrompt(p); ok {
			t.Errorf("prompt kept: %+v", got)
		}
	}
	got, ok := convertPrompt(&mcp.Prompt{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "who", Title: "Who\tis it", Required: true}}})
	want := wire.Prompt{Name: "p", Arguments: []wire.PromptArgument{{Name: "who", Title: "Who is it", Required: true}}}
	if !ok || len(got.Arguments) != 1 || got.Arguments[0] != want.Arguments[0] {
		t.Errorf("prompt %+v, want %+v", got, want)
	}
}
