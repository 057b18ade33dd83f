// Package urlsafe decides whether a URL that came from an MCP server or an
// authorization server may be shown to a person as a link or opened in a
// browser, and warns about host names made to look like others.
//
// Both the relay (before it hands out an authorization URL) and the
// dashboard (before it opens one, or a URL a server asks to open) use it, so
// it imports nothing but the standard library and shared/urlnorm.
package urlsafe

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// MaxLength is the longest URL accepted, in bytes. Authorization URLs carry
// a PKCE challenge, a state, a resource and scopes, so this is well above a
// server URL's limit.
const MaxLength = 8192

// ErrNotOpenable is wrapped by every error of [CheckOpenable].
var ErrNotOpenable = errors.New("URL refused")

// CheckOpenable reports whether raw may be opened: an absolute http or https
// URL with a host, without credentials, spaces, control characters or
// backslashes, and http only for a loopback host (localhost and names under
// .localhost, 127.0.0.0/8, ::1). javascript:, data:, file: and every other scheme are refused. It
// returns the host name in lower case, without port or brackets.
func CheckOpenable(raw string) (host string, err error) {
	switch {
	case raw == "":
		return "", fmt.Errorf("%w: empty", ErrNotOpenable)
	case len(raw) > MaxLength:
		return "", fmt.Errorf("%w: longer than %d bytes", ErrNotOpenable, MaxLength)
	case strings.IndexFunc(raw, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }) >= 0:
		return "", fmt.Errorf("%w: contains spaces or control characters", ErrNotOpenable)
	case strings.ContainsRune(raw, '\\'):
		// Browsers read a backslash as a slash in http URLs; Go does not.
		return "", fmt.Errorf("%w: contains a backslash", ErrNotOpenable)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: not a URL", ErrNotOpenable)
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "":
		return "", fmt.Errorf("%w: not an absolute URL", ErrNotOpenable)
	default:
		return "", fmt.Errorf("%w: scheme %q (only http and https open)", ErrNotOpenable, scheme)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("%w: no host", ErrNotOpenable)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: credentials in the URL", ErrNotOpenable)
	}
	host = strings.ToLower(u.Hostname())
	if scheme == "http" && !urlnorm.IsLoopback(host) {
		return "", fmt.Errorf("%w: plain http to %s (http is only for loopback addresses; use https)", ErrNotOpenable, host)
	}
	return host, nil
}
