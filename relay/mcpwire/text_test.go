package mcpwire

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"keeps line breaks and tabs", "a\n\tb", 100, "a\n\tb"},
		{"normalizes CR LF, CR and separators", "a\r\nb\rc\u2028d", 100, "a\nb\nc\nd"},
		{"drops controls and format characters", "a\x00b\x1b[1mc\u202ed\u200be", 100, "ab[1mcde"},
		{"replaces invalid UTF-8", "a\xffb", 100, "a\ufffdb"},
		{"trims trailing space", "a \n\n", 100, "a"},
		{"fits exactly", "abcde", 5, "abcde"},
		{"cuts with an ellipsis", "abcdef", 5, "abcd…"},
		{"cuts before trailing space", "abc  def", 5, "abc…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := text(tc.in, tc.max); got != tc.want {
				t.Errorf("text(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

func TestValidKey(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"get_weather", true},
		{"météo du jour", true},
		{"", false},
		{"bell\a", false},
		{"new\nline", false},
		{"bidi\u202eoverride", false},
		{"zero\u200bwidth", false},
		{"line\u2028separator", false},
		{"bad\xffutf8", false},
		{strings.Repeat("k", maxKeyRunes), true},
		{strings.Repeat("k", maxKeyRunes+1), false},
	} {
		if got := validKey(tc.in, maxKeyRunes); got != tc.want {
			t.Errorf("validKey(%.40q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
