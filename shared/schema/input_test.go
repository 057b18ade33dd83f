package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const richInput = `{
  "type": "object",
  "$defs": {
    "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x"]},
    "tree": {"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}
  },
  "properties": {
    "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$", "default": "ada"},
    "email": {"type": "string", "format": "email"},
    "id": {"type": "string", "format": "uuid"},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "ratio": {"type": "number"},
    "loud": {"type": "boolean", "default": true},
    "color": {"type": "string", "enum": ["red", "green"]},
    "size": {"oneOf": [{"const": 1, "title": "Small"}, {"const": 2, "title": "Large"}]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    "points": {"type": "array", "items": {"$ref": "#/$defs/point"}},
    "nick": {"type": ["string", "null"]},
    "target": {"anyOf": [{"type": "string", "title": "By name"}, {"$ref": "#/$defs/point"}]},
    "tree": {"$ref": "#/$defs/tree"},
    "mixed": {"allOf": [{"type": "string"}]},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
  },
  "required": ["name", "count"]
}`

func TestParseInputDrawsEveryConstruct(t *testing.T) {
	n, err := ParseInput(json.RawMessage(richInput))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]InputKind{}
	for _, p := range n.Props {
		kinds[p.Name] = p.Kind
	}
	want := map[string]InputKind{"name": InputField, "email": InputField, "id": InputField, "count": InputField,
		"ratio": InputField, "loud": InputField, "color": InputEnum, "size": InputEnum, "tags": InputArray,
		"points": InputArray, "nick": InputField, "target": InputChoice, "tree": InputObject, "mixed": InputJSON, "labels": InputJSON}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	if !n.Props[10].Nullable {
		t.Error("nick is not nullable")
	}
	if !n.Props[0].Required || n.Props[1].Required {
		t.Error("required not marked")
	}
	kids := n.Props[12].Props[1].Items
	if kids.Kind != InputJSON || kids.Why != "it refers to itself" {
		t.Errorf("a cycle is %v (%q), want JSON", kids.Kind, kids.Why)
	}
	if n.Props[9].Items.Kind != InputObject || len(n.Props[9].Items.Props) != 2 {
		t.Error("the points' $ref is not resolved to an object")
	}
	defaults := map[string]string{}
	for _, p := range n.Props {
		if p.Input.Default != nil {
			defaults[p.Name] = string(p.Input.Default)
		}
	}
	if !reflect.DeepEqual(defaults, map[string]string{"name": `"ada"`, "loud": "true"}) {
		t.Errorf("defaults = %v", defaults)
	}
}

func TestInputValidateNamesEachPlace(t *testing.T) {
	n, err := ParseInput(json.RawMessage(richInput))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value string
		want  []Problem
	}{
		{`{"name": "ada", "count": 3}`, nil},
		{`{"name": "ada", "count": 3, "nick": null, "size": 2, "target": {"x": 1}, "points": [{"x": 1, "y": 2}]}`, nil},
		{`{"name": "A", "count": 11}`, []Problem{{"/name", "must be at least 2 characters"}, {"/count", "must be at most 10"}}},
		{`{"count": 1.5}`, []Problem{{"/name", "is required"}, {"/count", "must be a whole number"}}},
		{`{"name": "ada", "count": 1, "color": "blue", "size": 3}`, []Problem{{"/color", "must be one of: red, green"}, {"/size", "must be one of: Small, Large"}}},
		{`{"name": "ada", "count": 1, "tags": ["a", "b", 3]}`, []Problem{{"/tags", "must have at most 2 items"}, {"/tags/2", "must be text"}}},
		{`{"name": "ada", "count": 1, "points": [{"y": 1}], "email": "x"}`, []Problem{{"/email", "must be an email address, like name@example.com"}, {"/points/0/x", "is required"}}},
		{`{"name": "ada", "count": 1, "target": 5, "loud": null}`, []Problem{{"/loud", "must not be null"}, {"/target", "matches none of the choices"}}},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.value), &v); err != nil {
			t.Fatal(err)
		}
		if got := n.Validate(v); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Validate(%s) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

func TestParseInputStopsAtDepthAndRefusesNonObjects(t *testing.T) {
	if _, err := ParseInput(json.RawMessage(`[1]`)); err == nil {
		t.Error("a list parsed as a schema")
	}
	deep := `{"type": "string"}`
	for range MaxInputDepth + 2 {
		deep = `{"type": "object", "properties": {"a": ` + deep + `}}`
	}
	n, err := ParseInput(json.RawMessage(deep))
	if err != nil {
		t.Fatal(err)
	}
	for n.Kind == InputObject {
		n = n.Props[0].Input
	}
	if n.Kind != InputJSON || n.Why != "it nests too deep for a form" {
		t.Errorf("the deepest node is %v (%q)", n.Kind, n.Why)
	}
}

func TestParseInputNeverLeavesAnEmptyChoice(t *testing.T) {
	n, err := ParseInput(json.RawMessage(`{"type": "object", "properties": {"z": {"anyOf": [{"type": "null"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if z := n.Props[0]; z.Kind != InputJSON {
		t.Errorf("a choice of null alone is %v", z.Kind)
	}
}

func TestInputValidateTakesAnEmptyStringAsAValue(t *testing.T) {
	in, err := ParseInput(json.RawMessage(`{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if problems := in.Validate(map[string]any{"s": ""}); len(problems) != 1 || problems[0].Path != "/s" {
		t.Errorf("an empty required string of at least 2 characters: %+v", problems)
	}
}

func TestInputWithTooManyFieldsIsOneJSONEditor(t *testing.T) {
	var props []string
	for i := range MaxInputNodes + 10 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
	}
	in, err := ParseInput(json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != InputJSON || len(in.Props) != 0 {
		t.Errorf("a schema of %d fields is drawn as %v with %d fields", MaxInputNodes+10, in.Kind, len(in.Props))
	}
}
