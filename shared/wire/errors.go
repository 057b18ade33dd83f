package wire

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error codes: stable strings a dashboard may branch on.
const (
	CodeBadFrame   = "bad_frame"   // the frame could not be decoded
	CodeBadRequest = "bad_request" // the op's arguments are missing or malformed
	CodeUnknownOp  = "unknown_op"  // no such op
	CodeInvalidURL = "invalid_url" // a URL that cannot be used
	CodeNotFound   = "not_found"   // no such server, tool, prompt or op
	CodeNotReady   = "not_ready"   // the server is not connected
	CodeUpstream   = "upstream"    // the MCP server answered with an error or failed
	CodeToolError  = "tool_error"  // the tool ran and reported isError
	CodeCancelled  = "cancelled"   // the op was cancelled
	CodeTooLarge   = "too_large"   // a frame or result is over the limit
	CodeInternal   = "internal"    // the relay failed; details are in its log

	CodeNotConfigured = "not_configured" // the relay lacks the configuration the op needs (a model)
)

// Error is a failure reported to the dashboard. Message is always sanitized.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// NewError builds an error with a sanitized message.
func NewError(code, message string) *Error {
	return &Error{Code: code, Message: Sanitize(message, MaxErrorMessage)}
}

// Sanitize makes untrusted text safe to show as one line: control and space
// characters collapse to single spaces, invisible format characters (bidi
// overrides and the like) are dropped, invalid UTF-8 becomes U+FFFD, and the
// result is cut to max runes, ending with an ellipsis when cut.
func Sanitize(s string, max int) string {
	if max < 1 {
		return ""
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) })
	line := strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, strings.Join(fields, " "))
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	runes := []rune(line)
	return strings.TrimSpace(string(runes[:max-1])) + "…"
}
