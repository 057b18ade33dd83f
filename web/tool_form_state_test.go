package web

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

const formSchema = `{"type": "object", "properties": {
  "name": {"type": "string", "minLength": 2},
  "count": {"type": "integer", "default": 3},
  "on": {"type": "boolean"},
  "size": {"oneOf": [{"const": 1, "title": "S"}, {"const": 2, "title": "L"}]},
  "tags": {"type": "array", "items": {"type": "string"}},
  "nick": {"type": ["string", "null"]},
  "at": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}]},
  "raw": {"allOf": [{"type": "object"}]},
  "box": {"type": "object", "properties": {"w": {"type": "number"}}}
}, "required": ["name"]}`

func parsedForm(t *testing.T) *schema.Input {
	t.Helper()
	root, err := schema.ParseInput(json.RawMessage(formSchema))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestToolFormStartsOnDefaultsAndOmitsEmptyFields(t *testing.T) {
	f := newToolForm(parsedForm(t), nil, false)
	v, b := f.value()
	if !jsonEqual(v, map[string]any{"count": 3.0}) {
		t.Errorf("a new form sends %v, want the default count only", v)
	}
	if got := f.problems(v, b); !reflect.DeepEqual(got, map[string]string{"/name": "is required"}) {
		t.Errorf("problems = %v", got)
	}
}

func TestToolFormRoundTripsEveryKindOfValue(t *testing.T) {
	want := map[string]any{"name": "ada", "count": 7.0, "on": false, "size": 2.0, "tags": []any{"a", "b"},
		"nick": nil, "at": map[string]any{"x": 1.5}, "raw": map[string]any{"k": []any{1.0}}, "box": map[string]any{"w": 2.0}}
	f := newToolForm(parsedForm(t), want, true)
	got, b := f.value()
	if !jsonEqual(got, want) { // what is sent is the JSON
		t.Errorf("filled with %v, the form sends %v", want, got)
	}
	if p := f.problems(got, b); len(p) != 0 {
		t.Errorf("problems: %v", p)
	}
	if e := f.entries["/at"]; e.alt != 1 {
		t.Errorf("the choice shows alternative %d, want the object", e.alt)
	}
}

func TestToolFormNamesProblemsByPlace(t *testing.T) {
	f := newToolForm(parsedForm(t), nil, false)
	f.entry("/name").text = "a"
	f.entry("/count").text = "1.x"
	tags := f.entry("/tags")
	f.entry("/tags/#" + itoa(f.addItem(tags))).text = "kept"
	f.entry("/tags/#" + itoa(f.addItem(tags))).text = ""
	f.entry("/raw").text = `{"a": `
	f.entry("/at").alt = 1
	v, b := f.value()
	if !reflect.DeepEqual(v["tags"], []any{"kept"}) {
		t.Errorf("tags = %v: an empty item is left out", v["tags"])
	}
	want := map[string]string{
		"/name":  "must be at least 2 characters",
		"/count": "must be a number",
		"/raw":   "is not valid JSON: unexpected end of JSON input",
	}
	got := f.problems(v, b)
	for place, msg := range want {
		if got[place] != msg {
			t.Errorf("problem at %s = %q, want %q (all: %v)", place, got[place], msg, got)
		}
	}
	if v["count"] != "1.x" {
		t.Errorf("text that is not a number is sent as typed, got %v", v["count"])
	}
	for _, typed := range []string{"1_000", "Infinity", "0x10"} {
		f.entry("/count").text = typed
		if v, b := f.value(); f.problems(v, b)["/count"] != "must be a number" {
			t.Errorf("%q is taken as a number", typed)
		}
	}
	f.entry("/count").text = "9007199254740993"
	if v, _ := f.value(); !jsonEqual(v["count"], json.Number("9007199254740993")) {
		t.Errorf("a long integer is sent as %v", v["count"])
	}
}

func TestToolFormSurvivesOddSchemas(t *testing.T) {
	for _, s := range []string{
		`{"type": "object", "properties": {"a": true, "b": false}}`,
		`{"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}`,
		`{"type": "object", "properties": {"a": {"enum": []}, "b": {"enum": [null]}, "c": {"const": {"k": 1}}}}`,
		`{"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"$ref": "http://x/y"}}}`,
		`{"type": "object", "properties": {"a": {"type": ["integer", "string"]}, "b": {"type": 5}}}`,
		`{"type": "object", "properties": {"a": {"oneOf": []}, "b": {"anyOf": [{"type": "null"}, {"type": "null"}]}}}`,
		`{"type": "object", "properties": {"a": {"type": "string", "pattern": "("}, "b": {"type": "number", "minimum": "x"}}}`,
		`{"type": "object", "required": "a", "properties": {"a": {"type": "object", "properties": 3}}}`,
	} {
		root, err := schema.ParseInput(json.RawMessage(s))
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		f := newToolForm(root, nil, false)
		v, b := f.value()
		f.problems(v, b)
		g := newToolForm(root, map[string]any{"a": []any{1.0, "x"}, "b": nil, "c": map[string]any{"k": 1.0}}, true)
		v, b = g.value()
		g.problems(v, b)
		panel := &ToolPanel{Tool: wire.Tool{Name: "odd", InputSchema: json.RawMessage(s)}}
		panel.OnInit()
		if html := rendered(t, panel); !strings.Contains(html, `id="tool-call"`) {
			t.Errorf("%s: the panel has no Call button", s)
		}
	}
}

func TestToolPanelDrawsTheRichSchema(t *testing.T) {
	panel := &ToolPanel{Tool: wire.Tool{Name: "rich", InputSchema: json.RawMessage(formSchema),
		OutputSchema: json.RawMessage(`{"type": "object"}`), Annotations: json.RawMessage(`{"destructiveHint": true}`)}}
	panel.OnInit()
	html := rendered(t, panel)
	for _, want := range []string{`id="tool-form"`, `id="tf/name"`, `id="tf/count"`, `value="3"`, `id="tf/nick-null"`,
		`class="tf-add`, `id="tf/at"`, `id="tf/raw"`, `Output schema`, `data-hint="destructive"`, "required"} {
		if !strings.Contains(html, want) {
			t.Errorf("the panel lacks %s", want)
		}
	}
	// go-app prerenders a "true" attribute bare.
	if tag := element(html, `id="tool-panel"`); !strings.Contains(tag, "data-destructive") || strings.Contains(tag, `data-destructive="false"`) {
		t.Errorf("the panel is not marked destructive: %s", tag)
	}
}
