package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// absent marks a value case where the field is left out of the values.
type absentValue struct{}

var absent absentValue

// valueCase is one value for the field "f" and the message it should get
// ("" for valid).
type valueCase struct {
	value any
	want  string
}

// keywordTest is one property "f" (required or not) and values for it.
type keywordTest struct {
	name     string
	prop     string
	required bool
	cases    []valueCase
}

// titled11 is eleven titled options, more than a message lists.
var _, titled11 = manyOptions(11)

// keywordTests are the cases of TestValidateChecksEveryKeyword.
var keywordTests = []keywordTest{
	{"string type", `{"type":"string"}`, false, []valueCase{
		{"anything", ""}, {5.0, "must be text"}, {true, "must be text"}, {[]any{"a"}, "must be text"},
	}},
	{"minLength", `{"type":"string","minLength":3}`, false, []valueCase{
		{"abc", ""}, {"abcdef", ""}, {"ab", "must be at least 3 characters"},
		{"héé", ""}, // 3 runes, 5 bytes
		{"日本", "must be at least 3 characters"},
	}},
	{"minLength one", `{"type":"string","minLength":1}`, false, []valueCase{
		{"a", ""}, {" ", ""},
	}},
	{"minLength singular message", `{"type":"string","minLength":1,"pattern":"x"}`, false, []valueCase{
		{"a", "must match the pattern x"},
	}},
	{"maxLength", `{"type":"string","maxLength":3}`, false, []valueCase{
		{"abc", ""}, {"a", ""}, {"abcd", "must be at most 3 characters"},
		{"日本語", ""}, // 3 runes, 9 bytes
		{"日本語!", "must be at most 3 characters"},
	}},
	{"maxLength one", `{"type":"string","maxLength":1}`, false, []valueCase{
		{"ab", "must be at most 1 character"},
	}},
	{"pattern", `{"type":"string","pattern":"^[a-z]+$"}`, false, []valueCase{
		{"abc", ""}, {"ABC", "must match the pattern ^[a-z]+$"}, {"ab1", "must match the pattern ^[a-z]+$"},
	}},
	{"pattern is unanchored", `{"type":"string","pattern":"\\d"}`, false, []valueCase{
		{"a1b", ""}, {"ab", `must match the pattern \d`},
	}},
	{"long pattern is not quoted", `{"type":"string","pattern":"^` + strings.Repeat("a", maxShownPattern) + `$"}`, false, []valueCase{
		{strings.Repeat("a", maxShownPattern), ""}, {"b", "is not in the expected form"},
	}},
	{"format email", `{"type":"string","format":"email"}`, false, []valueCase{
		{"ada@example.com", ""}, {"first.last+tag@mail.example.org", ""}, {"ü@bücher.de", ""},
		{"plain", formatMessages[FormatEmail]},
		{"ada@example", formatMessages[FormatEmail]},
		{"@example.com", formatMessages[FormatEmail]},
		{"ada@", formatMessages[FormatEmail]},
		{"ada@@example.com", formatMessages[FormatEmail]},
		{"a@b@example.com", formatMessages[FormatEmail]},
		{"ada lovelace@example.com", formatMessages[FormatEmail]},
		{"ada@example.com ", formatMessages[FormatEmail]},
		{"ada@exa\tmple.com", formatMessages[FormatEmail]},
		{"ada@example..com", formatMessages[FormatEmail]},
		{"ada@.example.com", formatMessages[FormatEmail]},
		{"ada@example.com.", formatMessages[FormatEmail]},
	}},
	{"format uri", `{"type":"string","format":"uri"}`, false, []valueCase{
		{"https://example.com", ""}, {"https://example.com/a?b=c#d", ""}, {"mailto:ada@example.com", ""}, {"urn:isbn:0451450523", ""},
		{"example.com", formatMessages[FormatURI]},
		{"/relative/path", formatMessages[FormatURI]},
		{"//example.com/x", formatMessages[FormatURI]},
		{"https://exa mple.com", formatMessages[FormatURI]},
		{"https:", formatMessages[FormatURI]},
		{"://example.com", formatMessages[FormatURI]},
		{"1http://example.com", formatMessages[FormatURI]},
	}},
	{"format date", `{"type":"string","format":"date"}`, false, []valueCase{
		{"2024-02-29", ""}, {"1999-12-31", ""},
		{"2023-02-29", formatMessages[FormatDate]},
		{"2024-13-01", formatMessages[FormatDate]},
		{"2024-04-31", formatMessages[FormatDate]},
		{"2024-1-5", formatMessages[FormatDate]},
		{"01/02/2024", formatMessages[FormatDate]},
		{"2024-01-01T00:00:00Z", formatMessages[FormatDate]},
	}},
	{"format date-time", `{"type":"string","format":"date-time"}`, false, []valueCase{
		{"2025-01-31T14:30:00Z", ""}, {"2025-01-31T14:30:00.123+02:00", ""},
		{"2025-01-31", formatMessages[FormatDateTime]},
		{"2025-01-31 14:30:00Z", formatMessages[FormatDateTime]},
		{"2025-01-31T14:30:00", formatMessages[FormatDateTime]},
		{"2025-02-30T00:00:00Z", formatMessages[FormatDateTime]},
		{"2025-01-31T25:00:00Z", formatMessages[FormatDateTime]},
	}},
	{"number type", `{"type":"number"}`, false, []valueCase{
		{1.5, ""}, {-3.0, ""}, {json.Number("2.25"), ""}, {7, ""}, {int64(8), ""},
		{"5", "must be a number"}, {true, "must be a number"}, {[]any{1.0}, "must be a number"},
		{math.Inf(1), "must be a number"}, {math.NaN(), "must be a number"},
		{json.Number("abc"), "must be a number"}, {json.Number("1e400"), "must be a number"},
	}},
	{"minimum", `{"type":"number","minimum":1}`, false, []valueCase{
		{1.0, ""}, {1.5, ""}, {json.Number("2"), ""},
		{0.5, "must be at least 1"}, {json.Number("0"), "must be at least 1"}, {-1, "must be at least 1"},
	}},
	{"minimum fraction", `{"type":"number","minimum":0.25}`, false, []valueCase{
		{0.25, ""}, {0.2, "must be at least 0.25"},
	}},
	{"maximum", `{"type":"number","maximum":10}`, false, []valueCase{
		{10.0, ""}, {-100.0, ""}, {10.5, "must be at most 10"}, {json.Number("11"), "must be at most 10"},
	}},
	{"integer", `{"type":"integer","minimum":0,"maximum":100}`, false, []valueCase{
		{3.0, ""}, {0.0, ""}, {json.Number("4"), ""}, {json.Number("4.0"), ""}, {42, ""},
		{3.5, "must be a whole number"}, {json.Number("4.5"), "must be a whole number"},
		{"3", "must be a number"}, {101.0, "must be at most 100"}, {-1.0, "must be at least 0"},
	}},
	{"boolean", `{"type":"boolean"}`, false, []valueCase{
		{true, ""}, {false, ""},
		{"true", "must be true or false"}, {1.0, "must be true or false"},
	}},
	{"enum", `{"type":"string","enum":["a","b"]}`, false, []valueCase{
		{"a", ""}, {"b", ""}, {"c", "must be one of: a, b"}, {"A", "must be one of: a, b"}, {1.0, "must be one of: a, b"},
	}},
	{"oneOf titled", `{"type":"string","oneOf":[{"const":"red","title":"Red"},{"const":"green","title":"Green"}]}`, false, []valueCase{
		{"red", ""}, {"Red", "must be one of: Red, Green"}, {"blue", "must be one of: Red, Green"},
	}},
	{"anyOf titled", `{"type":"string","anyOf":[{"const":"red","title":"Red"}]}`, false, []valueCase{
		{"red", ""}, {"green", "must be one of: Red"},
	}},
	{"enumNames", `{"type":"string","enum":["s","l"],"enumNames":["Small","Large"]}`, false, []valueCase{
		{"s", ""}, {"l", ""}, {"Small", "must be one of: Small, Large"},
	}},
	{"many options are not listed", `{"type":"string","oneOf":[` + titled11 + `]}`, false, []valueCase{
		{"v10", ""}, {"v11", "must be one of the listed options"},
	}},
	{"multi-select items.enum", `{"type":"array","items":{"type":"string","enum":["a","b","c"]}}`, false, []valueCase{
		{[]any{"a", "c"}, ""}, {[]string{"b"}, ""}, {[]any{}, ""},
		{[]any{"a", "x"}, "must be chosen from: a, b, c"},
		{[]any{"a", "a"}, `must not choose "a" twice`},
		{"a", "must be a list of choices"}, {[]any{"a", 1.0}, "must be a list of choices"}, {[]int{1}, "must be a list of choices"},
	}},
	{"multi-select items.anyOf", `{"type":"array","items":{"anyOf":[{"const":"cat","title":"Cat"},{"const":"dog","title":"Dog"}]}}`, false, []valueCase{
		{[]any{"cat", "dog"}, ""},
		{[]any{"Cat"}, "must be chosen from: Cat, Dog"},
		{[]any{"dog", "dog"}, `must not choose "Dog" twice`},
	}},
	{"multi-select many options", `{"type":"array","items":{"anyOf":[` + titled11 + `]}}`, false, []valueCase{
		{[]any{"nope"}, "must be chosen from the listed options"},
	}},
	{"minItems", `{"type":"array","items":{"enum":["a","b","c"]},"minItems":2}`, false, []valueCase{
		{[]any{"a", "b"}, ""}, {[]any{"a", "b", "c"}, ""},
		{[]any{"a"}, "must have at least 2 choices"}, {[]any{}, "must have at least 2 choices"},
	}},
	{"maxItems", `{"type":"array","items":{"enum":["a","b","c"]},"maxItems":1}`, false, []valueCase{
		{[]any{"a"}, ""}, {[]any{}, ""}, {[]any{"a", "b"}, "must have at most 1 choice"},
	}},
	{"maxItems plural", `{"type":"array","items":{"enum":["a","b","c"]},"maxItems":2}`, false, []valueCase{
		{[]any{"a", "b", "c"}, "must have at most 2 choices"},
	}},
	{"required string", `{"type":"string"}`, true, []valueCase{
		{"x", ""}, {absent, "is required"}, {nil, "is required"}, {"", "is required"},
	}},
	{"optional string", `{"type":"string","minLength":3,"format":"email"}`, false, []valueCase{
		{absent, ""}, {nil, ""}, {"", ""},
	}},
	{"required boolean accepts false", `{"type":"boolean"}`, true, []valueCase{
		{false, ""}, {absent, "is required"},
	}},
	{"required number accepts zero", `{"type":"number"}`, true, []valueCase{
		{0.0, ""}, {absent, "is required"}, {"", "is required"},
	}},
	{"required select", `{"type":"string","enum":["a"]}`, true, []valueCase{
		{"a", ""}, {"", "is required"},
	}},
	{"required multi-select accepts an empty list", `{"type":"array","items":{"enum":["a"]}}`, true, []valueCase{
		{[]any{}, ""}, {absent, "is required"},
	}},
	{"default does not stand in for a missing value", `{"type":"string","default":"hi"}`, true, []valueCase{
		{absent, "is required"}, {"hi", ""},
	}},
}

func TestValidateChecksEveryKeyword(t *testing.T) {
	for _, tt := range keywordTests {
		t.Run(tt.name, func(t *testing.T) {
			form := formOf(t, tt.prop, tt.required)
			for _, c := range tt.cases {
				values := map[string]any{"f": c.value}
				if c.value == absent {
					values = map[string]any{}
				}
				errs := form.Validate(values)
				if got := errs["f"]; got != c.want {
					t.Errorf("Validate(%#v) = %q, want %q", c.value, got, c.want)
				}
				if c.want == "" && errs != nil {
					t.Errorf("Validate(%#v) = %v, want nil", c.value, errs)
				}
			}
		})
	}
}

func TestValidateRefusesUnknownFields(t *testing.T) {
	form := formOf(t, `{"type":"string"}`, false)
	tests := []struct {
		values map[string]any
		want   string
	}{
		{map[string]any{"f": "x", "g": "y"}, `unknown field "g"`},
		{map[string]any{"zz": 1.0, "aa": nil, "f": "x"}, `unknown fields "aa", "zz"`},
		{map[string]any{"": "x"}, `unknown field ""`},
	}
	for _, tt := range tests {
		errs := form.Validate(tt.values)
		if errs[""] != tt.want {
			t.Errorf("Validate(%v)[\"\"] = %q, want %q", tt.values, errs[""], tt.want)
		}
		if _, ok := errs["f"]; ok {
			t.Errorf("Validate(%v) flagged the known field: %v", tt.values, errs)
		}
	}
}

func TestValidateReportsEveryFieldAtFault(t *testing.T) {
	f, err := Parse(json.RawMessage(`{"type":"object","properties":{
		"name": {"type":"string","minLength":2},
		"age": {"type":"integer","minimum":18},
		"ok": {"type":"boolean"}
	},"required":["name","ok"]}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	errs := f.Validate(map[string]any{"name": "A", "age": 17.0, "extra": true})
	want := FieldErrors{
		"":     `unknown field "extra"`,
		"name": "must be at least 2 characters",
		"age":  "must be at least 18",
		"ok":   "is required",
	}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("Validate = %v, want %v", errs, want)
	}
	wantText := `unknown field "extra"; age: must be at least 18; name: must be at least 2 characters; ok: is required`
	if errs.Error() != wantText {
		t.Errorf("Error() = %q, want %q", errs.Error(), wantText)
	}
	if nilErrs := f.Validate(nil); !reflect.DeepEqual(nilErrs, FieldErrors{"name": "is required", "ok": "is required"}) {
		t.Errorf("Validate(nil) = %v", nilErrs)
	}
}

func TestValidateOfAnEmptyFormAcceptsNoValues(t *testing.T) {
	f, err := Parse(json.RawMessage(`{"type":"object"}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if errs := f.Validate(map[string]any{}); errs != nil {
		t.Errorf("Validate({}) = %v, want nil", errs)
	}
	if errs := f.Validate(map[string]any{"a": 1.0}); errs[""] != `unknown field "a"` {
		t.Errorf("Validate({a}) = %v", errs)
	}
}

func TestValidateOfAHandBuiltFieldCompilesItsPattern(t *testing.T) {
	f := &Form{Fields: []Field{
		{Name: "code", Kind: String, Pattern: "^[0-9]{4}$"},
		{Name: "broken", Kind: String, Pattern: "(x"},
		{Name: "odd", Kind: Kind(42)},
	}}
	errs := f.Validate(map[string]any{"code": "12a4", "broken": "x", "odd": "x"})
	want := FieldErrors{
		"code":   "must match the pattern ^[0-9]{4}$",
		"broken": "cannot be checked: the pattern is invalid",
		"odd":    "cannot be checked: unknown kind of field",
	}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("Validate = %v, want %v", errs, want)
	}
	if errs := f.Validate(map[string]any{"code": "1234"}); errs != nil {
		t.Errorf("Validate(1234) = %v, want nil", errs)
	}
}
