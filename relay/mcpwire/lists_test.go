package mcpwire

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

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

// hostileLists is what a hostile server may list: unusable names, long and
// odd text, a schema far too large.
func hostileLists() ([]*mcp.Tool, []*mcp.Prompt, []*mcp.Resource) {
	props := map[string]any{}
	for i := range 3000 {
		props[fmt.Sprintf("field%04d", i)] = map[string]any{"type": "string", "description": "a field of a schema far too large"}
	}
	tools := []*mcp.Tool{
		{Name: "bad\x07name"},
		{Name: "bidi\u202ename"},
		{Name: "huge_schema", InputSchema: map[string]any{"type": "object", "properties": props}},
		{Name: "ok", Title: "Ti\ttle\nnext", Description: strings.Repeat("d", 5*maxDescriptionRunes)},
		nil,
	}
	prompts := []*mcp.Prompt{{Name: "p\x00"}, {Name: "bad_argument", Arguments: []*mcp.PromptArgument{{Name: "a\nb"}}}, {Name: "good"}}
	resources := []*mcp.Resource{{URI: "test://x\u202e", Name: "x"}, {URI: "test://fine", Name: "fine\x1b name"}}
	return tools, prompts, resources
}

// checkClean fails when s is not capped at max runes, or holds control or
// format characters other than line breaks.
func checkClean(t *testing.T, what, s string, max int) {
	t.Helper()
	if utf8.RuneCountInString(s) > max || strings.ContainsFunc(s, func(r rune) bool {
		return r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
	}) {
		t.Errorf("%s not capped or sanitized: %.80q (%d runes)", what, s, utf8.RuneCountInString(s))
	}
}

func TestHostileServerIsCappedAndSanitized(t *testing.T) {
	var st wire.Server
	Initialized(&st, &mcp.InitializeResult{
		ServerInfo:   &mcp.Implementation{Name: "evil\x1b[31m\nserver", Version: "1\u202e0"},
		Instructions: "line one\r\nline\x00 two\u202e" + strings.Repeat("i", 3*maxInstructionsRunes),
	}, nil)
	checkClean(t, "server name", st.Info.Name, maxTitleRunes)
	if strings.Contains(st.Info.Name, "\n") {
		t.Errorf("server name %q spans lines", st.Info.Name)
	}
	checkClean(t, "server version", st.Info.Version, maxVersionRunes)
	checkClean(t, "instructions", st.Instructions, maxInstructionsRunes)
	if !strings.HasPrefix(st.Instructions, "line one\nline two") || !strings.HasSuffix(st.Instructions, "…") {
		t.Errorf("instructions %.40q…%q: want line breaks kept and a cut marked", st.Instructions, st.Instructions[len(st.Instructions)-10:])
	}

	ctx, cv := context.Background(), NewConverter(nil, nil)
	hostileTools, hostilePrompts, hostileResources := hostileLists()
	tools := cv.Tools(ctx, hostileTools, nil, nil)
	if len(tools) != 2 || tools[0].Name != "huge_schema" || tools[1].Name != "ok" {
		t.Fatalf("tools %+v, want the ones with usable names", tools)
	}
	if tools[0].InputSchema != nil {
		t.Errorf("a %d-byte input schema was relayed", len(tools[0].InputSchema))
	}
	checkClean(t, "description", tools[1].Description, maxDescriptionRunes)
	if tools[1].Title != "Ti tle next" {
		t.Errorf("title %q", tools[1].Title)
	}
	if prompts := cv.Prompts(ctx, hostilePrompts); len(prompts) != 1 || prompts[0].Name != "good" {
		t.Errorf("prompts %+v, want only good", prompts)
	}
	if resources := cv.Resources(ctx, hostileResources); len(resources) != 1 || resources[0].URI != "test://fine" || resources[0].Name != "fine name" {
		t.Errorf("resources %+v", resources)
	}
}

func TestToolsShowTheirTaskSupport(t *testing.T) {
	tools := NewConverter(nil, nil).Tools(context.Background(), []*mcp.Tool{{Name: "research"}, {Name: "quick"}, {Name: "plain"}},
		map[string]wire.TaskSupport{"research": wire.TaskSupportRequired, "quick": wire.TaskSupportOptional, "plain": "whenever"},
		map[string]string{"research": "this tool runs only as a task"})
	want := []wire.Tool{
		{Name: "research", TaskSupport: wire.TaskSupportRequired, Uncallable: "this tool runs only as a task"},
		{Name: "quick", TaskSupport: wire.TaskSupportOptional},
		{Name: "plain"},
	}
	if !reflect.DeepEqual(tools, want) {
		t.Errorf("tools %+v, want %+v", tools, want)
	}
}

func TestServerCapabilitiesAreShownWithTasks(t *testing.T) {
	var st wire.Server
	Initialized(&st, &mcp.InitializeResult{Capabilities: &mcp.ServerCapabilities{
		Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{},
		Experimental: map[string]any{"b\x00ad": true, "fine": true},
	}}, &wire.TaskCapability{ToolCall: true})
	caps := st.Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged || !caps.Logging || caps.Tasks == nil || !caps.Tasks.ToolCall || st.Logging == nil ||
		len(caps.Experimental) != 1 || caps.Experimental[0] != "fine" {
		t.Errorf("capabilities %+v, logging %+v", caps, st.Logging)
	}
}
