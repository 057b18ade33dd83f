package web

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// visibleControls makes a server's text safe to read: line breaks and tabs
// stay, every other control character becomes a visible escape (ESC shows
// as \x1b), invisible format characters (bidi overrides and the like) show
// as \u escapes, and invalid UTF-8 as U+FFFD.
func visibleControls(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x80 && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsEscape reports whether r would not show as itself.
func needsEscape(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
