// Package urlnorm checks and normalizes the URLs of MCP servers, so that the
// same server typed two ways is recognized as one.
package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// MaxLength is the longest URL accepted, in bytes.
const MaxLength = 2048

// ErrInvalid is wrapped by every error of [Normalize].
var ErrInvalid = errors.New("invalid URL")

// Normalize checks that raw is an absolute http or https URL without
// credentials and returns its normal form: scheme and host in lower case,
// the default port dropped, no trailing slash on the path, no fragment.
func Normalize(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalid)
	}
	if len(raw) > MaxLength {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxLength)
	}
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "", fmt.Errorf("%w: contains spaces or control characters (write a space as %%20)", ErrInvalid)
	}
	if !strings.Contains(raw, "://") {
		// "javascript:x" names a scheme; "localhost:8080/mcp" and
		// "127.0.0.1:8080" are a host and port without one.
		scheme, rest, found := strings.Cut(raw, ":")
		if u, err := url.Parse(raw); err == nil && found && u.Scheme != "" && (rest == "" || rest[0] < '0' || rest[0] > '9') &&
			!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
			return "", fmt.Errorf("%w: scheme %q is not allowed (use http or https)", ErrInvalid, strings.ToLower(u.Scheme))
		}
		return "", fmt.Errorf("%w: missing scheme (start with http:// or https://)", ErrInvalid)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrInvalid, parseReason(err))
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "":
		return "", fmt.Errorf("%w: missing scheme (use http:// or https://)", ErrInvalid)
	default:
		return "", fmt.Errorf("%w: scheme %q is not allowed (use http or https)", ErrInvalid, scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("%w: missing host", ErrInvalid)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: credentials in the URL are not allowed", ErrInvalid)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("%w: missing host", ErrInvalid)
	}
	if _, zone, ok := strings.Cut(host, "%"); ok && strings.IndexFunc(zone, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
		// A URL cannot write such a zone back in a form it reads again.
		return "", fmt.Errorf("%w: the IPv6 zone %q is not plain ASCII", ErrInvalid, zone)
	}
	port := u.Port()
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535) {
		return "", fmt.Errorf("%w: port %s is out of range (1 to 65535)", ErrInvalid, port)
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	hostport := host
	if strings.Contains(host, ":") { // IPv6 literal
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport = net.JoinHostPort(host, port)
	}
	out := url.URL{
		Scheme:   scheme,
		Host:     hostport,
		Path:     strings.TrimRight(u.Path, "/"),
		RawPath:  strings.TrimRight(u.RawPath, "/"),
		RawQuery: u.RawQuery,
	}
	return out.String(), nil
}

// IsLoopback reports whether host (a name or an IP literal, without port) is
// localhost or a loopback address.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// parseReason says in plain words why url.Parse refused a URL.
func parseReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "invalid port"):
		return "the port must be a number from 1 to 65535"
	case strings.Contains(msg, "invalid character") && strings.Contains(msg, "host name"):
		return "the host name contains a character a host name cannot have"
	case strings.HasPrefix(msg, "invalid URL escape"):
		return "a % is not followed by two hexadecimal digits"
	}
	return msg
}
