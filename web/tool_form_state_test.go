package web

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/schema"
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
	if !reflect.DeepEqual(v, map[string]any{"count": 3.0}) {
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
	if !reflect.DeepEqual(got, want) {
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
}
