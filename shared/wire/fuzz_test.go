package wire

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzDecode decodes any bytes as the relay decodes a dashboard's frame and
// the dashboard a relay's: either a clear ErrBadFrame, or a frame of this
// version with a type that encodes and decodes back to itself.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"type":"op","id":"1","op":"call_tool","data":{"server":"s1","name":"echo","arguments":{"x":1}}}`,
		`{"v":1,"type":"hello","data":{"epoch":"e","seq":3}}`,
		`{"v":1,"type":"auth","data":{"token":"t"}}`,
		`{"v":1,"type":"delta","seq":2,"data":{"changes":[{"kind":"tool","server":"s","key":"k","value":{"name":"k"}}]}}`,
		`{"v":1,"type":"error","id":"9","error":{"code":"upstream","message":"boom","rpcCode":-32000}}`,
		`{"v":1,"type":"snapshot","seq":18446744073709551615,"data":{"servers":[]}}`,
		`{"v":1,"type":"op","data":null}`,
		`{"v":1.0,"type":"op"}`, `{"V":1,"TYPE":"op"}`, `{"v":1,"type":"op","v":2}`,
		`{"v":2,"type":"op"}`, `{"v":1}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrBadFrame) {
				t.Fatalf("Decode(%q) = %v, not ErrBadFrame", b, err)
			}
			return
		}
		if fr.V != Version || fr.Type == "" {
			t.Fatalf("Decode(%q) accepted version %d type %q", b, fr.V, fr.Type)
		}
		enc, err := Encode(fr)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)): %v", b, err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(%q))) = %v (encoded %s)", b, err, enc)
		}
		if !reflect.DeepEqual(dataless(fr), dataless(again)) || !reflect.DeepEqual(decoded(t, fr.Data), decoded(t, again.Data)) {
			t.Fatalf("round trip of %q:\n got %+v\nwant %+v", b, again, fr)
		}
	})
}

// dataless is f without its data.
func dataless(f Frame) Frame {
	f.Data = nil
	return f
}

// decoded is the value of a frame's data, nil when there is none.
func decoded(t *testing.T, data json.RawMessage) any {
	if data == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("data %q is not JSON: %v", data, err)
	}
	return v
}

// FuzzApplyDelta applies any delta, as the dashboard applies what the relay
// sends, to a state with a server, a call, an ask and a journal: an error
// leaves the state as it was, and an earlier copy of the state keeps its
// contents whatever the delta did.
func FuzzApplyDelta(f *testing.F) {
	for _, s := range []string{
		`{"changes":[{"kind":"tool","server":"s1","key":"b","value":{"name":"b"}}]}`,
		`{"changes":[{"kind":"tool","server":"s1","key":"a","value":{"name":"a","description":"new"}},{"kind":"tool","server":"s9","key":"x","value":{}}]}`,
		`{"changes":[{"kind":"server","server":"s1","key":"s1","remove":true}]}`,
		`{"changes":[{"kind":"server","server":"s2","key":"s2","value":{"id":"s2","name":"two"},"at":0}]}`,
		`{"changes":[{"kind":"server","server":"s2","key":"s2","value":{"id":"s2"},"at":-1},{"kind":"prompt","server":"s2","key":"p","value":{"name":"p"},"at":7}]}`,
		`{"changes":[{"kind":"call","server":"s1","key":"c1","remove":true},{"kind":"ask","server":"s1","key":"a2","value":{"id":"a2"}}]}`,
		`{"changes":[{"kind":"log","server":"s1","key":"2","value":{"n":2,"level":"info"}},{"kind":"activity","server":"s1","remove":true}]}`,
		`{"changes":[{"kind":"roots","value":[{"uri":"file:///a","name":"a"}]}]}`,
		`{"changes":[{"kind":"agent_call","key":"g","value":{"id":"g"}}]}`,
		`{"changes":[{"kind":"chat","key":"c","value":{"id":"c"}},{"kind":"chat_turn","key":"c","value":{}}]}`,
		`{"changes":[{"kind":"tool","server":"s1","key":"a","value":"not an object"}]}`,
		`{"changes":[{"kind":"nonsense"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Delta
		if json.Unmarshal(b, &d) != nil {
			return
		}
		snap := Snapshot{
			Epoch: "e", User: "u",
			Servers:  []Server{{ID: "s1", Name: "one", State: StateReady, Tools: []Tool{{Name: "a"}}, Prompts: []Prompt{{Name: "p"}}}},
			Calls:    []Call{{ID: "c1", Server: "s1"}},
			Asks:     []Ask{{ID: "a1", Server: "s1"}},
			Roots:    []Root{{URI: "file:///r"}},
			Journals: []Journal{{Server: "s1", Logs: []LogEntry{{N: 1}}}},
		}
		before := jsonString(t, snap)
		earlier := snap
		if err := snap.ApplyAll(d.Changes); err != nil {
			if got := jsonString(t, snap); got != before {
				t.Fatalf("a failed delta (%v) changed the state:\n%s\nto\n%s", err, before, got)
			}
		}
		if got := jsonString(t, earlier); got != before {
			t.Fatalf("applying %s changed an earlier copy:\n%s\nto\n%s", b, before, got)
		}
	})
}

func jsonString(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzSanitize checks what every error message and close reason goes
// through: one line of valid UTF-8, without control or invisible format
// characters, at most max runes, and the same when sanitized again.
func FuzzSanitize(f *testing.F) {
	f.Add("boom\x1b[31m\nred\u202e", 300)
	f.Add(strings.Repeat("é", 400), 10)
	f.Add("a\xffb\u200b c\t\td", 1)
	f.Add("  ", 0)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1000
		got := Sanitize(s, max)
		if !utf8.ValidString(got) {
			t.Fatalf("Sanitize(%q, %d) = %q: invalid UTF-8", s, max, got)
		}
		if n := utf8.RuneCountInString(got); n > max && !(max < 1 && n == 0) {
			t.Fatalf("Sanitize(%q, %d) = %q: %d runes", s, max, got, n)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("Sanitize(%q, %d) = %q keeps %U", s, max, got, r)
			}
		}
		if again := Sanitize(got, max); again != got {
			t.Fatalf("Sanitize is not stable on %q: %q then %q", s, got, again)
		}
	})
}
