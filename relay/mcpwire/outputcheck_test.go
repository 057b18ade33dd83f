package mcpwire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// weatherSchema has nested objects, arrays, a $ref into $defs and bounds.
const weatherSchema = `{
	"type": "object",
	"properties": {
		"city": {"type": "string", "minLength": 1},
		"days": {"type": "array", "items": {"$ref": "#/$defs/day"}},
		"unit": {"enum": ["C", "F"]}
	},
	"required": ["city", "days"],
	"$defs": {
		"day": {
			"type": "object",
			"properties": {"high": {"type": "number", "maximum": 60}, "sky": {"type": "string"}},
			"required": ["high"]
		}
	}
}`

func TestOutputCheckFindsEachProblemWithItsPath(t *testing.T) {
	for _, tc := range []struct {
		name       string
		structured string // "" for none
		valid      bool
		paths      []string
	}{
		{name: "matches", structured: `{"city":"Oslo","days":[{"high":3,"sky":"grey"}],"unit":"C"}`, valid: true},
		{name: "no structured content", paths: []string{""}},
		{name: "wrong type deep inside", structured: `{"city":"Oslo","days":[{"high":3},{"high":"warm"}]}`, paths: []string{"/days/1/high"}},
		{name: "several places", structured: `{"city":"","days":[{"high":99},{"sky":"blue"}],"unit":"K"}`, paths: []string{"/city", "/days/0/high", "/days/1", "/unit"}},
		{name: "missing required", structured: `{"city":"Oslo"}`, paths: []string{""}},
		{name: "not an object", structured: `[1,2]`, paths: []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var structured json.RawMessage
			if tc.structured != "" {
				structured = json.RawMessage(tc.structured)
			}
			got := checkOutput(json.RawMessage(weatherSchema), structured)
			if got.Valid != tc.valid {
				t.Fatalf("valid %v, want %v (%+v)", got.Valid, tc.valid, got.Problems)
			}
			var paths []string
			for _, p := range got.Problems {
				paths = append(paths, p.Path)
				if p.Reason == "" {
					t.Errorf("problem at %q has no reason", p.Path)
				}
			}
			if !reflect.DeepEqual(paths, tc.paths) {
				t.Errorf("paths %q, want %q (%+v)", paths, tc.paths, got.Problems)
			}
		})
	}
}

func TestOutputCheckReasonsSayWhatIsWrong(t *testing.T) {
	got := checkOutput(json.RawMessage(weatherSchema), json.RawMessage(`{"city":"Oslo","days":[{"high":"warm"}]}`))
	if len(got.Problems) != 1 || got.Problems[0].Reason != `type: warm has type "string", want "number"` {
		t.Errorf("problems %+v", got.Problems)
	}
	got = checkOutput(json.RawMessage(`{"type":"object","required":["a"]}`), json.RawMessage(`{}`))
	if len(got.Problems) != 1 || got.Problems[0].Reason != `required: missing properties: ["a"]` {
		t.Errorf("problems %+v", got.Problems)
	}
}

func TestOutputCheckOfAnUnusableSchemaSaysSo(t *testing.T) {
	got := checkOutput(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`), json.RawMessage(`{"a":1}`))
	if got.Valid || len(got.Problems) != 1 || got.Problems[0].Path != "" {
		t.Errorf("check %+v", got)
	}
}

func TestToolResultChecksStructuredContentAgainstTheOutputSchema(t *testing.T) {
	result := func(structured any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "forecast"}}, StructuredContent: structured}
	}
	for name, tc := range map[string]struct {
		res    *mcp.CallToolResult
		schema json.RawMessage
		want   *wire.OutputCheck
	}{
		"good": {result(map[string]any{"city": "Oslo", "days": []any{map[string]any{"high": 3}}}), json.RawMessage(weatherSchema), &wire.OutputCheck{Valid: true}},
		"bad": {result(map[string]any{"city": "Oslo", "days": []any{map[string]any{"high": "warm"}}}), json.RawMessage(weatherSchema),
			&wire.OutputCheck{Problems: []wire.SchemaProblem{{Path: "/days/0/high", Reason: `type: warm has type "string", want "number"`}}}},
		"missing": {result(nil), json.RawMessage(weatherSchema),
			&wire.OutputCheck{Problems: []wire.SchemaProblem{{Reason: "the tool declares an outputSchema but its result has no structuredContent"}}}},
		"no outputSchema":  {result(map[string]any{"any": "thing"}), nil, nil},
		"the tool's error": {&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "forecast"}}}, json.RawMessage(weatherSchema), nil},
	} {
		res, err := ToolResult(tc.res, tc.schema)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(res.OutputCheck, tc.want) {
			t.Errorf("%s: check %+v, want %+v", name, res.OutputCheck, tc.want)
		}
		if len(res.Content) != 1 || res.Content[0].Text != "forecast" {
			t.Errorf("%s: the result is not shown whole: %+v", name, res.Content)
		}
	}
}
