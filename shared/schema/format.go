package schema

import (
	"net/url"
	"strings"
	"time"
	"unicode"
)

// dateLayout is the layout of a JSON Schema "date": an RFC 3339 full-date.
const dateLayout = "2006-01-02"

// formatMessages say what a value of each format must look like.
var formatMessages = map[string]string{
	FormatEmail:    "must be an email address, like name@example.com",
	FormatURI:      "must be a full URI, like https://example.com",
	FormatDate:     "must be a date, like 2025-01-31",
	FormatDateTime: "must be a date and time, like 2025-01-31T14:30:00Z",
}

// checkFormat reports whether s has the given format.
func checkFormat(format, s string) bool {
	switch format {
	case FormatEmail:
		return isEmail(s)
	case FormatURI:
		return isURI(s)
	case FormatDate:
		_, err := time.Parse(dateLayout, s)
		return err == nil
	case FormatDateTime:
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	}
	return true
}

// isEmail is a sensible check, not RFC 5322: local@domain, no spaces or
// control characters, and a domain of dot-separated, non-empty labels.
func isEmail(s string) bool {
	if hasSpaceOrControl(s) {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || strings.Contains(domain, "@") || !strings.Contains(domain, ".") {
		return false
	}
	for label := range strings.SplitSeq(domain, ".") {
		if label == "" {
			return false
		}
	}
	return true
}

// isURI reports whether s is an absolute URI: a scheme and something after
// it, without spaces.
func isURI(s string) bool {
	if hasSpaceOrControl(s) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Opaque != "" || u.Host != "" || u.Path != "")
}

// hasSpaceOrControl reports whether s holds a space or control character.
func hasSpaceOrControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}
