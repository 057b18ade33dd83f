package servercfg

import (
	"fmt"
	"net/http"
	"strings"
)

// Limits on custom headers.
const (
	MaxHeaders     = 20
	MaxHeaderName  = 100  // bytes
	MaxHeaderValue = 8192 // bytes
)

// forbidden are header names a person may not set: hop-by-hop headers,
// those the HTTP client computes, and those of the MCP transport itself.
var forbidden = map[string]string{
	"Host":                 "set from the URL",
	"Content-Length":       "computed for each request",
	"Content-Type":         "set by the MCP transport",
	"Accept":               "set by the MCP transport",
	"Connection":           "a hop-by-hop header",
	"Keep-Alive":           "a hop-by-hop header",
	"Proxy-Connection":     "a hop-by-hop header",
	"Proxy-Authorization":  "a hop-by-hop header",
	"Proxy-Authenticate":   "a hop-by-hop header",
	"Te":                   "a hop-by-hop header",
	"Trailer":              "a hop-by-hop header",
	"Transfer-Encoding":    "a hop-by-hop header",
	"Upgrade":              "a hop-by-hop header",
	"Cookie":               "not sent by the relay",
	"Mcp-Session-Id":       "set by the MCP transport",
	"Mcp-Protocol-Version": "set by the MCP transport",
	"Mcp-Method":           "set by the MCP transport",
	"Last-Event-Id":        "set by the MCP transport",
}

// Authorization is the header that, when set, replaces the relay's OAuth
// for the server: its value is sent as is and no authorization is asked.
const Authorization = "Authorization"

// CanonicalHeader returns name in canonical form ("x-api-key" → "X-Api-Key").
func CanonicalHeader(name string) string {
	return http.CanonicalHeaderKey(strings.TrimSpace(name))
}

// CheckHeader checks a custom header. Errors name the header but never
// quote its value, which is a secret.
func CheckHeader(name, value string) error {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return fmt.Errorf("a header needs a name")
	case len(name) > MaxHeaderName:
		return fmt.Errorf("the header name is longer than %d characters", MaxHeaderName)
	case !isToken(name):
		return fmt.Errorf("the header name %q may hold only letters, digits and !#$%%&'*+-.^_`|~", name)
	}
	if why, ok := forbidden[CanonicalHeader(name)]; ok {
		return fmt.Errorf("the header %s cannot be set: it is %s", CanonicalHeader(name), why)
	}
	switch {
	case len(value) > MaxHeaderValue:
		return fmt.Errorf("the value of %s is longer than %d characters", CanonicalHeader(name), MaxHeaderValue)
	case strings.ContainsAny(value, "\r\n\x00"):
		return fmt.Errorf("the value of %s contains a line break or NUL", CanonicalHeader(name))
	}
	for _, r := range value {
		if r < ' ' && r != '\t' || r == 0x7f {
			return fmt.Errorf("the value of %s contains control characters", CanonicalHeader(name))
		}
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110).
func isToken(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}
