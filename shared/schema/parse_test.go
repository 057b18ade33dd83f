package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// fieldsOf returns the fields of a parsed form without compiled patterns,
// so they compare with reflect.DeepEqual.
func fieldsOf(f *Form) []Field {
	out := make([]Field, len(f.Fields))
	for i, fd := range f.Fields {
		fd.re = nil
		out[i] = fd
	}
	return out
}

// formOf parses a form whose only property "f" is prop.
func formOf(t *testing.T, prop string, required bool) *Form {
	t.Helper()
	req := "[]"
	if required {
		req = `["f"]`
	}
	f, err := Parse(json.RawMessage(`{"type":"object","properties":{"f":` + prop + `},"required":` + req + `}`))
	if err != nil {
		t.Fatalf("Parse(%s): %v", prop, err)
	}
	return f
}

func TestParseReadsEverySchemaVariant(t *testing.T) {
	raw := `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "title": "Sign up",
	  "description": "Tell us about you",
	  "additionalProperties": false,
	  "x-vendor": {"anything": true},
	  "properties": {
	    "name": {"type": "string", "title": "Name", "description": "Full name", "minLength": 2, "maxLength": 50, "pattern": "^[A-Z]", "default": "Ada"},
	    "email": {"type": "string", "format": "email"},
	    "site": {"type": "string", "format": "uri"},
	    "born": {"type": "string", "format": "date"},
	    "meet": {"type": "string", "format": "date-time"},
	    "height": {"type": "number", "minimum": 0.5, "maximum": 2.5, "default": 1.7},
	    "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
	    "agree": {"type": "boolean", "default": true},
	    "size": {"type": "string", "enum": ["s", "l"], "default": "s"},
	    "color": {"type": "string", "oneOf": [{"const": "red", "title": "Red"}, {"const": "green", "title": "Green"}]},
	    "shade": {"type": "string", "anyOf": [{"const": "dark", "title": "Dark"}, {"const": "light"}]},
	    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
	    "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "minItems": 1, "maxItems": 2, "default": ["x"], "uniqueItems": true},
	    "pets": {"type": "array", "items": {"anyOf": [{"const": "cat", "title": "Cat"}, {"const": "dog", "title": "Dog"}]}}
	  },
	  "required": ["name", "agree", "tags"]
	}`
	f, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if f.Title != "Sign up" || f.Description != "Tell us about you" {
		t.Errorf("title, description = %q, %q", f.Title, f.Description)
	}
	want := []Field{
		{Name: "name", Title: "Name", Description: "Full name", Kind: String, Required: true, MinLength: ptr(2), MaxLength: ptr(50), Pattern: "^[A-Z]", Default: "Ada"},
		{Name: "email", Kind: String, Format: FormatEmail},
		{Name: "site", Kind: String, Format: FormatURI},
		{Name: "born", Kind: String, Format: FormatDate},
		{Name: "meet", Kind: String, Format: FormatDateTime},
		{Name: "height", Kind: Number, Minimum: ptr(0.5), Maximum: ptr(2.5), Default: 1.7},
		{Name: "age", Kind: Integer, Minimum: ptr(0.0), Maximum: ptr(150.0), Default: 30.0},
		{Name: "agree", Kind: Boolean, Required: true, Default: true},
		{Name: "size", Kind: SingleSelect, Options: []Option{{"s", "s"}, {"l", "l"}}, Default: "s"},
		{Name: "color", Kind: SingleSelect, Options: []Option{{"red", "Red"}, {"green", "Green"}}},
		{Name: "shade", Kind: SingleSelect, Options: []Option{{"dark", "Dark"}, {"light", "light"}}},
		{Name: "legacy", Kind: SingleSelect, Options: []Option{{"a", "Alpha"}, {"b", "Beta"}}},
		{Name: "tags", Kind: MultiSelect, Required: true, Options: []Option{{"x", "x"}, {"y", "y"}, {"z", "z"}}, MinItems: ptr(1), MaxItems: ptr(2), Default: []string{"x"}},
		{Name: "pets", Kind: MultiSelect, Options: []Option{{"cat", "Cat"}, {"dog", "Dog"}}},
	}
	got := fieldsOf(f)
	if len(got) != len(want) {
		t.Fatalf("got %d fields, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("field %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestParseKeepsDocumentOrder(t *testing.T) {
	names := []string{"zeta", "alpha", "mu", "beta", "omega", "a10", "a9"}
	var props []string
	for _, n := range names {
		props = append(props, fmt.Sprintf(`%q: {"type": "string"}`, n))
	}
	raw := `{"type": "object", "properties": {` + strings.Join(props, ",") + `}}`
	f, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var got []string
	for _, fd := range f.Fields {
		got = append(got, fd.Name)
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("order = %v, want %v", got, names)
	}
}

func TestParseIsLiberalWhereTheSpecIs(t *testing.T) {
	tests := []struct {
		name, raw string
		check     func(*Form) bool
	}{
		{"no properties is an empty form", `{"type":"object"}`,
			func(f *Form) bool { return len(f.Fields) == 0 }},
		{"property without title", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			func(f *Form) bool { return f.Fields[0].Title == "" && f.Fields[0].Kind == String }},
		{"titled entry without title is labelled by its value", `{"type":"object","properties":{"a":{"type":"string","oneOf":[{"const":"v"}]}}}`,
			func(f *Form) bool { return f.Fields[0].Options[0] == Option{"v", "v"} }},
		{"empty enumNames entry keeps the value as label", `{"type":"object","properties":{"a":{"type":"string","enum":["v","w"],"enumNames":["","W"]}}}`,
			func(f *Form) bool {
				return f.Fields[0].Options[0] == Option{"v", "v"} && f.Fields[0].Options[1] == Option{"w", "W"}
			}},
		{"items.oneOf as titled choices", `{"type":"object","properties":{"a":{"type":"array","items":{"oneOf":[{"const":"v","title":"V"}]}}}}`,
			func(f *Form) bool {
				return f.Fields[0].Kind == MultiSelect && f.Fields[0].Options[0] == Option{"v", "V"}
			}},
		{"null default is no default", `{"type":"object","properties":{"a":{"type":"string","default":null}}}`,
			func(f *Form) bool { return f.Fields[0].Default == nil }},
		{"keyword of another type is ignored", `{"type":"object","properties":{"a":{"type":"string","minimum":3}}}`,
			func(f *Form) bool { return f.Fields[0].Minimum == nil }},
		{"annotations are ignored", `{"type":"object","$id":"x","properties":{"a":{"type":"boolean","examples":[true],"deprecated":false,"$comment":"c"}}}`,
			func(f *Form) bool { return f.Fields[0].Kind == Boolean }},
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`,
			func(f *Form) bool { return f != nil }},
		{"whole float counts", `{"type":"object","properties":{"a":{"type":"string","minLength":3.0}}}`,
			func(f *Form) bool { return *f.Fields[0].MinLength == 3 }},
		{"integer default may be a float", `{"type":"object","properties":{"a":{"type":"integer","default":2.5}}}`,
			func(f *Form) bool { return f.Fields[0].Default == 2.5 }},
		{"ECMA-style escaped slash compiles", `{"type":"object","properties":{"a":{"type":"string","pattern":"^a\\/b\\d$"}}}`,
			func(f *Form) bool { return f.Fields[0].re.MatchString("a/b1") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !tt.check(f) {
				t.Errorf("unexpected form: %+v", f)
			}
		})
	}
}

// manyProperties returns n string properties.
func manyProperties(n int) string {
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string"}`, i)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

// manyOptions returns n enum values and n titled entries.
func manyOptions(n int) (enum, titled string) {
	values := make([]string, n)
	entries := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprintf(`"v%d"`, i)
		entries[i] = fmt.Sprintf(`{"const":"v%d","title":"V%d"}`, i, i)
	}
	return strings.Join(values, ","), strings.Join(entries, ",")
}

// prop wraps one property "x" in a form.
func prop(p string) string {
	return `{"type":"object","properties":{"x":` + p + `}}`
}

// enum501 and titled501 are one option more than a field may have.
var enum501, titled501 = manyOptions(MaxOptions + 1)

// refusedSchemas are the cases of TestParseRefusesSchemasOutsideTheSubset:
// a schema and what the error says of it.
var refusedSchemas = []struct{ name, raw, want string }{
	{"not JSON", `{"type":`, "not valid JSON"},
	{"empty", ``, "not valid JSON"},
	{"array", `[]`, "must be a JSON object"},
	{"null", `null`, "must be a JSON object"},
	{"too large", `{"type":"object","title":"` + strings.Repeat("a", MaxBytes) + `"}`, "larger than 1048576 bytes"},
	{"missing type", `{"properties":{}}`, `missing "type" (must be "object")`},
	{"top type not object", `{"type":"array"}`, `"type" must be "object", not "array"`},
	{"top type not a string", `{"type":["object"]}`, `"type" must be a string`},
	{"top $ref", `{"type":"object","$ref":"#/x"}`, `keyword "$ref" is not supported`},
	{"top allOf", `{"type":"object","allOf":[]}`, `keyword "allOf" is not supported`},
	{"top oneOf", `{"type":"object","oneOf":[]}`, `keyword "oneOf" is not supported`},
	{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"string"}}`, `"additionalProperties" must be true or false`},
	{"top description not string", `{"type":"object","description":[]}`, `"description" must be a string`},
	{"top title not string", `{"type":"object","title":5}`, `"title" must be a string`},
	{"properties not object", `{"type":"object","properties":[]}`, `"properties": must be a JSON object`},
	{"required not strings", `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`, `"required" must be an array of strings`},
	{"required unknown", `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`, `"required" names "b", which is not a property`},
	{"too many fields", manyProperties(MaxFields + 1), "more than 100 properties"},
	{"duplicate property", `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`, `property "a" is defined twice`},
	{"empty property name", `{"type":"object","properties":{"":{"type":"string"}}}`, "a property has an empty name"},
	{"property not object", prop(`"string"`), `property "x": must be a JSON object`},
	{"property missing type", prop(`{"title":"X"}`), `property "x": missing "type"`},
	{"type list", prop(`{"type":["string","null"]}`), `property "x": "type" must be a single string`},
	{"nested object", prop(`{"type":"object"}`), `property "x": nested objects are not allowed`},
	{"nested properties", prop(`{"type":"string","properties":{}}`), `property "x": nested objects are not allowed`},
	{"null type", prop(`{"type":"null"}`), `property "x": type "null" is not supported`},
	{"property $ref", prop(`{"type":"string","$ref":"#/defs/a"}`), `property "x": keyword "$ref" is not supported`},
	{"property $defs", prop(`{"type":"string","$defs":{}}`), `property "x": keyword "$defs" is not supported`},
	{"property allOf", prop(`{"type":"string","allOf":[]}`), `property "x": keyword "allOf" is not supported`},
	{"property not", prop(`{"type":"string","not":{}}`), `property "x": keyword "not" is not supported`},
	{"property const", prop(`{"type":"string","const":"a"}`), `property "x": keyword "const" is not supported`},
	{"exclusiveMinimum", prop(`{"type":"number","exclusiveMinimum":1}`), `property "x": keyword "exclusiveMinimum" is not supported`},
	{"multipleOf", prop(`{"type":"number","multipleOf":2}`), `property "x": keyword "multipleOf" is not supported`},
	{"title not string", prop(`{"type":"string","title":1}`), `property "x": "title" must be a string`},
	{"description not string", prop(`{"type":"string","description":{}}`), `property "x": "description" must be a string`},
	{"enum on number", prop(`{"type":"number","enum":[1,2]}`), `property "x": "enum" is only allowed on strings`},
	{"oneOf on boolean", prop(`{"type":"boolean","oneOf":[]}`), `property "x": "oneOf" is only allowed on strings`},
	{"anyOf on array", prop(`{"type":"array","anyOf":[],"items":{"enum":["a"]}}`), `property "x": "anyOf" is only allowed on strings`},
	{"items on string", prop(`{"type":"string","items":{}}`), `property "x": "items" is only allowed on arrays`},
	{"array without items", prop(`{"type":"array"}`), `property "x": an array must list its choices in "items"`},
	{"array of numbers", prop(`{"type":"array","items":{"type":"number"}}`), `property "x": "items": type "number" is not supported (a multi-select holds strings)`},
	{"array of objects", prop(`{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}}`), `property "x": "items": nested objects are not allowed`},
	{"array of arrays", prop(`{"type":"array","items":{"type":"array","items":{"enum":["a"]}}}`), `property "x": "items": nested arrays are not allowed`},
	{"array of free strings", prop(`{"type":"array","items":{"type":"string"}}`), `property "x": "items" must list the choices in "enum" or "anyOf"`},
	{"items type list", prop(`{"type":"array","items":{"type":["string"],"enum":["a"]}}`), `property "x": "items": "type" must be a single string`},
	{"items $ref", prop(`{"type":"array","items":{"$ref":"#/a"}}`), `property "x": "items": keyword "$ref" is not supported`},
	{"items not object", prop(`{"type":"array","items":[{"type":"string"}]}`), `property "x": "items": must be a JSON object`},
	{"format unknown", prop(`{"type":"string","format":"hostname"}`), `property "x": format "hostname" is not supported (use email, uri, date or date-time)`},
	{"format not string", prop(`{"type":"string","format":1}`), `property "x": "format" must be a string`},
	{"minLength negative", prop(`{"type":"string","minLength":-1}`), `property "x": "minLength" must be a whole number from 0 to 2147483647`},
	{"minLength fraction", prop(`{"type":"string","minLength":1.5}`), `property "x": "minLength" must be a whole number`},
	{"minLength huge", prop(`{"type":"string","minLength":1e300}`), `property "x": "minLength" must be a whole number`},
	{"maxLength string", prop(`{"type":"string","maxLength":"3"}`), `property "x": "maxLength" must be a number`},
	{"maxLength below minLength", prop(`{"type":"string","minLength":3,"maxLength":2}`), `property "x": maxLength 2 is less than minLength 3`},
	{"pattern does not compile", prop(`{"type":"string","pattern":"(abc"}`), `property "x": pattern does not compile: error parsing regexp: missing closing )`},
	{"pattern lookahead", prop(`{"type":"string","pattern":"(?=a)"}`), `property "x": pattern does not compile`},
	{"pattern backreference", prop(`{"type":"string","pattern":"(a)\\1"}`), `property "x": pattern does not compile`},
	{"pattern too long", prop(`{"type":"string","pattern":"` + strings.Repeat("a", MaxPatternLength+1) + `"}`), `property "x": pattern is longer than 1000 characters`},
	{"pattern not string", prop(`{"type":"string","pattern":1}`), `property "x": "pattern" must be a string`},
	{"minimum string", prop(`{"type":"number","minimum":"1"}`), `property "x": "minimum" must be a number`},
	{"maximum string", prop(`{"type":"number","maximum":"9"}`), `property "x": "maximum" must be a number`},
	{"maximum below minimum", prop(`{"type":"integer","minimum":5,"maximum":1.5}`), `property "x": maximum 1.5 is less than minimum 5`},
	{"maxItems below minItems", prop(`{"type":"array","items":{"enum":["a"]},"minItems":2,"maxItems":1}`), `property "x": maxItems 1 is less than minItems 2`},
	{"minItems negative", prop(`{"type":"array","items":{"enum":["a"]},"minItems":-2}`), `property "x": "minItems" must be a whole number`},
	{"enum empty", prop(`{"type":"string","enum":[]}`), `property "x": a select needs at least one option`},
	{"enum not array", prop(`{"type":"string","enum":"a"}`), `property "x": "enum" must be an array`},
	{"enum number", prop(`{"type":"string","enum":["a",2]}`), `property "x": enum[1] must be a string`},
	{"enum null", prop(`{"type":"string","enum":[null]}`), `property "x": enum[0] must be a string`},
	{"enum duplicate", prop(`{"type":"string","enum":["a","a"]}`), `property "x": option "a" is listed twice`},
	{"enum empty value", prop(`{"type":"string","enum":[""]}`), `property "x": option values must not be empty`},
	{"enum too many", prop(`{"type":"string","enum":[` + enum501 + `]}`), `property "x": more than 500 options`},
	{"oneOf too many", prop(`{"type":"string","oneOf":[` + titled501 + `]}`), `property "x": more than 500 options`},
	{"items enum too many", prop(`{"type":"array","items":{"type":"string","enum":[` + enum501 + `]}}`), `property "x": "items": more than 500 options`},
	{"items anyOf too many", prop(`{"type":"array","items":{"anyOf":[` + titled501 + `]}}`), `property "x": "items": more than 500 options`},
	{"enum and oneOf", prop(`{"type":"string","enum":["a"],"oneOf":[{"const":"a"}]}`), `property "x": use only one of "enum" and "oneOf"`},
	{"enumNames without enum", prop(`{"type":"string","enumNames":["A"]}`), `property "x": "enumNames" needs "enum"`},
	{"enumNames with oneOf", prop(`{"type":"string","oneOf":[{"const":"a"}],"enumNames":["A"]}`), `property "x": "enumNames" needs "enum"`},
	{"enumNames count", prop(`{"type":"string","enum":["a","b"],"enumNames":["A"]}`), `property "x": "enum" has 2 values but "enumNames" has 1`},
	{"enumNames not strings", prop(`{"type":"string","enum":["a"],"enumNames":[1]}`), `property "x": "enumNames" must be an array of strings`},
	{"oneOf not array", prop(`{"type":"string","oneOf":{}}`), `property "x": "oneOf" must be an array`},
	{"oneOf entry not object", prop(`{"type":"string","oneOf":["a"]}`), `property "x": oneOf[0]: must be a JSON object`},
	{"oneOf without const", prop(`{"type":"string","oneOf":[{"title":"A"}]}`), `property "x": oneOf[0]: "const" must be a string`},
	{"oneOf const number", prop(`{"type":"string","oneOf":[{"const":"a"},{"const":1,"title":"One"}]}`), `property "x": oneOf[1]: "const" must be a string`},
	{"oneOf title number", prop(`{"type":"string","oneOf":[{"const":"a","title":1}]}`), `property "x": oneOf[0]: "title" must be a string`},
	{"anyOf empty const", prop(`{"type":"string","anyOf":[{"const":"","title":"None"}]}`), `property "x": option values must not be empty`},
	{"string default number", prop(`{"type":"string","default":5}`), `property "x": "default" must be a string`},
	{"select default number", prop(`{"type":"string","enum":["a"],"default":1}`), `property "x": "default" must be a string`},
	{"number default string", prop(`{"type":"number","default":"5"}`), `property "x": "default" must be a number`},
	{"boolean default string", prop(`{"type":"boolean","default":"true"}`), `property "x": "default" must be true or false`},
	{"multi default string", prop(`{"type":"array","items":{"enum":["a"]},"default":"a"}`), `property "x": "default" must be an array of strings`},
}

func TestParseRefusesSchemasOutsideTheSubset(t *testing.T) {
	for _, tt := range refusedSchemas {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("Parse succeeded with %d fields, want error %q", len(f.Fields), tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if !strings.HasPrefix(err.Error(), "invalid schema: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseAcceptsTheLimits(t *testing.T) {
	enum500, titled500 := manyOptions(MaxOptions)
	for _, raw := range []string{
		manyProperties(MaxFields),
		prop(`{"type":"string","enum":[` + enum500 + `]}`),
		prop(`{"type":"array","items":{"anyOf":[` + titled500 + `]}}`),
		prop(`{"type":"string","pattern":"` + strings.Repeat("é", MaxPatternLength) + `"}`),
	} {
		if _, err := Parse(json.RawMessage(raw)); err != nil {
			t.Errorf("Parse at the limit: %v", err)
		}
	}
}

func TestDefaultsReturnsTypedValuesOfFieldsThatHaveThem(t *testing.T) {
	f, err := Parse(json.RawMessage(`{"type":"object","properties":{
		"s": {"type":"string","default":"hi"},
		"n": {"type":"number","default":1.5},
		"i": {"type":"integer","default":3},
		"b": {"type":"boolean","default":false},
		"one": {"type":"string","enum":["a","b"],"default":"b"},
		"many": {"type":"array","items":{"enum":["a","b"]},"default":["a","b"]},
		"none": {"type":"string"}
	}}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	got := f.Defaults()
	want := map[string]any{"s": "hi", "n": 1.5, "i": 3.0, "b": false, "one": "b", "many": []string{"a", "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Defaults = %#v, want %#v", got, want)
	}
	if errs := f.Validate(got); errs != nil {
		t.Errorf("defaults do not validate: %v", errs)
	}
	got["many"].([]string)[0] = "changed"
	if again := f.Defaults(); again["many"].([]string)[0] != "a" {
		t.Errorf("changing the returned defaults changed the form: %v", again["many"])
	}
}

func TestKindNames(t *testing.T) {
	want := map[Kind]string{String: "string", Number: "number", Integer: "integer", Boolean: "boolean",
		SingleSelect: "single-select", MultiSelect: "multi-select", Kind(42): "unknown", Kind(-1): "unknown"}
	for k, name := range want {
		if k.String() != name {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), name)
		}
	}
}
