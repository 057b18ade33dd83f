package store

import (
	"strings"
	"testing"
)

func TestJSONShowsAngleBracketsAndAmpersandsAsTyped(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":"\u003cb\u003e \u0026"}`, "{\n  \"a\": \"<b> &\"\n}"},
		{`{"a":"\\u003c"}`, "{\n  \"a\": \"\\\\u003c\"\n}"},                 // an escaped backslash, then text
		{`{"a":"\\\u003c"}`, "{\n  \"a\": \"\\\\<\"\n}"},                    // an escaped backslash, then an escape
		{`{"a":"\u00e9\n\"x\""}`, "{\n  \"a\": \"\\u00e9\\n\\\"x\\\"\"\n}"}, // other escapes stay
		{`not json`, `not json`},
	}
	for _, c := range cases {
		if got := IndentJSON([]byte(c.in)); got != c.want {
			t.Errorf("IndentJSON(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNotReadySaysWhatToDoWithoutRepeatingItself(t *testing.T) {
	relay := "the server is not connected: its last attempt failed (connect: connection refused)"
	if got := NotReadyText(relay); strings.Count(strings.ToLower(got), "not connected") != 1 || !strings.HasPrefix(got, "The server is not connected: its last attempt failed") || !strings.HasSuffix(got, NotReadyHint) {
		t.Errorf("NotReadyText = %q", got)
	}
	if got := NotReadyText("the server is still connecting"); !strings.Contains(got, "(the server is still connecting)") {
		t.Errorf("NotReadyText drops the relay's detail: %q", got)
	}
}
