package authn

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxPort is the largest TCP port.
const maxPort = 65535

// defaultPorts are dropped when origins are compared.
var defaultPorts = map[string]string{"http": "80", "https": "443"}

// OriginPolicy decides whether the page that sent a request may use the
// WebSocket or change state. It fails closed: no Origin, no entry.
type OriginPolicy struct {
	allowed map[string]bool
}

// NewOriginPolicy returns a policy that admits the relay's own origin and the
// given ones, each a scheme://host[:port] origin with scheme http or https.
func NewOriginPolicy(allowed []string) (*OriginPolicy, error) {
	p := &OriginPolicy{allowed: make(map[string]bool, len(allowed))}
	for _, a := range allowed {
		o, err := normalizeOrigin(a)
		if err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", a, err)
		}
		p.allowed[o] = true
	}
	return p, nil
}

// Allowed reports whether r has exactly one Origin header and it is the
// relay's own origin (http or https as r arrived, and r.Host) or an allowed
// one. X-Forwarded-* headers are not trusted.
func (p *OriginPolicy) Allowed(r *http.Request) bool {
	values := r.Header.Values("Origin")
	if len(values) != 1 {
		return false
	}
	origin, err := normalizeOrigin(values[0])
	if err != nil {
		return false
	}
	if p.allowed[origin] {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	own, err := normalizeOrigin(scheme + "://" + r.Host)
	return err == nil && origin == own
}

// normalizeOrigin lower-cases scheme and host and drops a default port. It
// refuses anything but http(s)://host[:port], allowing a lone trailing slash.
func normalizeOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	scheme := strings.ToLower(u.Scheme)
	def, ok := defaultPorts[scheme]
	switch {
	case !ok:
		return "", fmt.Errorf("scheme must be http or https")
	case u.Opaque != "" || u.User != nil || u.Hostname() == "":
		return "", fmt.Errorf("want scheme://host[:port]")
	case (u.Path != "" && u.Path != "/") || strings.ContainsAny(s, "?#"):
		return "", fmt.Errorf("an origin has no path, query or fragment")
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > maxPort {
			return "", fmt.Errorf("port %q out of range", port)
		}
		port = strconv.Itoa(n)
	}
	if port == "" || port == def {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host, nil
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}
