// Package urlnorm checks and normalizes the URLs of MCP servers, so that the
// same server typed two ways is recognized as one.
package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
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
	port := u.Port()
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

func parseReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
