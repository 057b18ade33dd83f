package mcpwire

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// line makes untrusted text safe to show on one line.
func line(s string, max int) string { return wire.Sanitize(s, max) }

// text makes untrusted multi-line text safe to show: line breaks stay (CR LF,
// CR and the Unicode separators become LF), tabs stay, other control and
// format characters go, invalid UTF-8 becomes U+FFFD, trailing space is
// trimmed, and the result is cut to max runes, ending with an ellipsis when
// cut.
func text(s string, max int) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	out := make([]rune, 0, min(len(s), max+1))
	for _, r := range s { // invalid UTF-8 yields U+FFFD
		switch {
		case r == '\r', r == '\u2028', r == '\u2029':
			r = '\n'
		case r == '\n', r == '\t':
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			continue
		}
		out = append(out, r)
		if len(out) > max {
			return strings.TrimRightFunc(string(out[:max-1]), unicode.IsSpace) + "…"
		}
	}
	return strings.TrimRightFunc(string(out), unicode.IsSpace)
}

// validKey reports whether s can serve as the key of a listed item: not
// empty, valid UTF-8, at most max runes, without control, format or line
// separator characters. Items with other keys are dropped, not renamed: the
// server would not know a renamed item.
func validKey(s string, max int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	})
}
