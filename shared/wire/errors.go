package wire

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Code is a stable error code a dashboard may branch on.
type Code string

// Error codes.
const (
	CodeBadFrame   Code = "bad_frame"   // the frame could not be decoded
	CodeBadRequest Code = "bad_request" // the op's arguments are missing or malformed
	CodeUnknownOp  Code = "unknown_op"  // no such op
	CodeInvalidURL Code = "invalid_url" // a URL that cannot be used
	CodeNotFound   Code = "not_found"   // no such server, tool, prompt or op
	CodeNotReady   Code = "not_ready"   // the server is not connected
	CodeUpstream   Code = "upstream"    // the MCP server answered with an error or failed
	CodeToolError  Code = "tool_error"  // the tool ran and reported isError
	CodeCancelled  Code = "cancelled"   // the op was cancelled
	CodeTooLarge   Code = "too_large"   // a frame or result is over the limit
	CodeInternal   Code = "internal"    // the relay failed; details are in its log

	CodeNotConfigured Code = "not_configured" // the relay lacks the configuration the op needs (a model)

	CodeConnectionLost Code = "connection_lost" // the connection to the server broke while the op ran
	CodeTimeout        Code = "timeout"         // the relay's per-call timeout passed
	CodeProtocol       Code = "protocol"        // the server answered with a JSON-RPC error (RPCCode)

	// CodeUnauthorized answers an [Auth] frame sent on an open socket whose
	// token the relay refused: the socket lives on with the token it had.
	CodeUnauthorized Code = "unauthorized"
)

// Error is a failure reported to the dashboard. Message is always sanitized.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// RPCCode is the server's JSON-RPC error code, for CodeProtocol.
	RPCCode int `json:"rpcCode,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// NewError builds an error with a sanitized message.
func NewError(code Code, message string) *Error {
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
	visible := strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	line := strings.Join(strings.FieldsFunc(visible, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }), " ")
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	runes := []rune(line)
	return strings.TrimSpace(string(runes[:max-1])) + "…"
}
