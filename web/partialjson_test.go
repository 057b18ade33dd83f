package web

import "testing"

// The start of a model's arguments stands for the object written so far.
func TestPartialObject(t *testing.T) {
	for partial, want := range map[string]string{
		`{`:                                `{}`,
		`{"ci`:                             `{}`,
		`{"city"`:                          `{}`,
		`{"city":`:                         `{}`,
		`{"city": "Par`:                    `{"city": "Par"}`,
		`{"city": "Paris", "da`:            `{"city": "Paris"}`,
		`{"city": "Paris", "days": [1, 2`:  `{"city": "Paris", "days": [1]}`,
		`{"city": "Paris", "days": [1, 2]`: `{"city": "Paris", "days": [1, 2]}`,
		`{"n": -1.5e`:                      `{}`,
		`{"n": 12 `:                        `{"n": 12 }`,
		`{"ok": false`:                     `{"ok": false}`,
		`{"city": "Paris", "days": [1, 2], "units": tr`: `{"city": "Paris", "days": [1, 2]}`,
		`{"q": "say \"hi`:           `{"q": "say \"hi"}`,
		`{"nested": {"a": {"b": "c`: `{"nested": {"a": {"b": "c"}}}`,
		`{"a": 1}`:                  `{"a": 1}`,
	} {
		got, ok := partialObject(partial)
		if !ok || string(got) != want {
			t.Errorf("partialObject(%q) = %s, %v; want %s", partial, got, ok, want)
		}
	}
	for _, partial := range []string{``, `[`, `"a`, `}`} {
		if got, ok := partialObject(partial); ok {
			t.Errorf("partialObject(%q) = %s, want nothing", partial, got)
		}
	}
}
