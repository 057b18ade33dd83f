package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzParse parses any document as an elicitation's requested schema and
// validates any values against what it accepted: a refusal wraps
// ErrInvalid; a form keeps within its limits, names each field once, and
// Validate names only its fields (or "" for the form) and answers the same
// twice.
func FuzzParse(f *testing.F) {
	for _, s := range [][2]string{
		{`{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":5,"pattern":"^[a-z]+$"},"age":{"type":"integer","minimum":0,"maximum":150}},"required":["name"]}`, `{"name":"ab","age":3}`},
		{`{"type":"object","properties":{"c":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"],"default":"r"}}}`, `{"c":"b"}`},
		{`{"type":"object","properties":{"c":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"minItems":1,"maxItems":1}}}`, `{"c":["a","a"]}`},
		{`{"type":"object","properties":{"e":{"type":"string","format":"email"},"d":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uri"}}}`, `{"e":"x@","d":"2026-13-01","u":"::"}`},
		{`{"type":"object","properties":{"n":{"type":"number","minimum":1e308,"maximum":1e308},"b":{"type":"boolean","default":true}}}`, `{"n":1e309,"b":"yes","x":1}`},
		{`{"type":"object","properties":{"a":{"$ref":"#/x"}}}`, `{}`},
		{`{"type":"object","properties":{"p":{"type":"string","pattern":"(a*)*b"}}}`, `{"p":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`},
		{`{"type":"string"}`, `{}`},
		{`[]`, `[]`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, doc, values []byte) {
		form, err := Parse(doc)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q) = %v, not ErrInvalid", doc, err)
			}
			return
		}
		if len(form.Fields) > MaxFields {
			t.Fatalf("Parse(%q) kept %d fields", doc, len(form.Fields))
		}
		names := map[string]bool{}
		for _, fd := range form.Fields {
			if names[fd.Name] {
				t.Fatalf("Parse(%q) named %q twice", doc, fd.Name)
			}
			names[fd.Name] = true
			if len(fd.Options) > MaxOptions {
				t.Fatalf("Parse(%q): %q has %d options", doc, fd.Name, len(fd.Options))
			}
			if len([]rune(fd.Pattern)) > MaxPatternLength {
				t.Fatalf("Parse(%q): %q has a pattern of %d characters", doc, fd.Name, len([]rune(fd.Pattern)))
			}
		}
		var vals map[string]any
		if json.Unmarshal(values, &vals) != nil {
			vals = form.Defaults()
		}
		errs := form.Validate(vals)
		for k, msg := range errs {
			if k != "" && !names[k] {
				t.Fatalf("Validate names %q, no field of %q", k, doc)
			}
			if msg == "" {
				t.Fatalf("Validate gives %q an empty message", k)
			}
		}
		if again := form.Validate(vals); again.Error() != errs.Error() {
			t.Fatalf("Validate(%v) said %q, then %q", vals, errs, again)
		}
	})
}

// FuzzParseInput reads any document as a tool's inputSchema and validates
// any value against it: a refusal wraps ErrInvalid; the form nests no
// deeper than its limit allows and draws at most MaxInputNodes nodes as
// more than JSON; each problem Validate finds is at a JSON Pointer with a
// reason.
func FuzzParseInput(f *testing.F) {
	for _, s := range [][2]string{
		{`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":["integer","null"]},"tags":{"type":"array","items":{"type":"string"},"maxItems":2}},"required":["q"]}`, `{"q":"x","tags":["a","b","c"]}`},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/a"}}}}}`, `{"a":{"b":{"b":1}}}`},
		{`{"type":"object","properties":{"c":{"oneOf":[{"type":"string"},{"type":"object","properties":{"x":{"enum":[1,"1",null]}}}]}}}`, `{"c":{"x":2}}`},
		{`{"type":"object","properties":{"a~b/c":{"type":"number","minimum":3}}}`, `{"a~b/c":1}`},
		{`{"allOf":[{"type":"string"}]}`, `"s"`},
		{`{"$ref":"#/definitions/missing"}`, `null`},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"k":1}`},
		{`[1]`, `1`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, doc, value []byte) {
		in, err := ParseInput(doc)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseInput(%q) = %v, not ErrInvalid", doc, err)
			}
			return
		}
		drawn := 0
		var walk func(n *Input, depth int)
		walk = func(n *Input, depth int) {
			if n == nil {
				t.Fatalf("ParseInput(%q) holds a nil node", doc)
			}
			if depth > MaxInputDepth+1 {
				t.Fatalf("ParseInput(%q) nests %d deep", doc, depth)
			}
			if n.Kind != InputJSON {
				drawn++
			} else if n.Why == "" {
				t.Fatalf("ParseInput(%q): a JSON node that does not say why", doc)
			}
			for _, p := range n.Props {
				walk(p.Input, depth+1)
			}
			if n.Items != nil {
				walk(n.Items, depth+1)
			}
			for _, a := range n.Alts {
				walk(a, depth+1)
			}
		}
		walk(in, 0)
		if drawn > MaxInputNodes {
			t.Fatalf("ParseInput(%q) draws %d nodes", doc, drawn)
		}
		var v any
		if json.Unmarshal(value, &v) != nil {
			return
		}
		for _, p := range in.Validate(v) {
			if p.Path != "" && !strings.HasPrefix(p.Path, "/") || p.Reason == "" {
				t.Fatalf("Validate(%s) against %q: problem %+v", value, doc, p)
			}
		}
	})
}
