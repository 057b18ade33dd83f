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
	if got := NotReadyText("the server is not connected"); strings.Count(got, "not connected") != 1 || !strings.HasSuffix(got, NotReadyHint) {
		t.Errorf("NotReadyText = %q", got)
	}
	if got := NotReadyText("the server is still connecting"); !strings.Contains(got, "(the server is still connecting)") {
		t.Errorf("NotReadyText drops the relay's detail: %q", got)
	}
}
