package apps

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
)

// maxDomainLen caps one declared domain.
const maxDomainLen = 255

// errNotOrigin is the reason a declared domain is not an origin pattern.
var errNotOrigin = errors.New("not an origin (scheme http, https, ws or wss, a host optionally starting with *., an optional port)")

// errOwnOrigin is the reason a declared domain names the relay or the Apps origin.
var errOwnOrigin = errors.New("names the relay itself")

// checkDomain returns d in lower case when it is an origin pattern a view
// may declare: scheme http, https, ws or wss, a host that may start with
// "*.", an optional port, and nothing else. own are the origins (scheme
// and host, as parsed by parseOrigin) no view may reach: the relay's and
// the Apps origin.
func checkDomain(d string, own []origin) (string, error) {
	o, ok := parseOrigin(d)
	if !ok {
		return "", errNotOrigin
	}
	for _, r := range own {
		if o.covers(r) {
			return "", errOwnOrigin
		}
	}
	return o.String(), nil
}

// origin is a parsed origin pattern.
type origin struct {
	scheme string
	host   string // may start with "*."
	port   string // "" for the scheme's default
}

// parseOrigin parses an origin pattern, strictly.
func parseOrigin(s string) (origin, bool) {
	if len(s) > maxDomainLen {
		return origin{}, false
	}
	s = strings.ToLower(s)
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return origin{}, false
	}
	switch scheme {
	case "http", "https", "ws", "wss":
	default:
		return origin{}, false
	}
	o := origin{scheme: scheme, host: rest}
	if strings.HasPrefix(rest, "[") { // an IPv6 literal
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return origin{}, false
		}
		o.host, rest = rest[:end+1], rest[end+1:]
		if !validIPv6(o.host[1:end]) {
			return origin{}, false
		}
		if rest != "" {
			p, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return origin{}, false
			}
			if !validPort(p) {
				return origin{}, false
			}
			o.port = p
		}
	} else if h, p, ok := strings.Cut(rest, ":"); ok {
		if !validPort(p) {
			return origin{}, false
		}
		o.host, o.port = h, p
	}
	if !strings.HasPrefix(o.host, "[") && !validHost(strings.TrimPrefix(o.host, "*.")) {
		return origin{}, false
	}
	return o, true
}

// originOf parses a configured origin (scheme://host[:port]); ok is false
// when it is none.
func originOf(s string) (origin, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return origin{}, false
	}
	return parseOrigin(u.Scheme + "://" + u.Host)
}

// String writes the origin back.
func (o origin) String() string {
	if o.port == "" {
		return o.scheme + "://" + o.host
	}
	return o.scheme + "://" + o.host + ":" + o.port
}

// covers says whether pattern o lets a view reach the server at r: the
// same host (or one under o's wildcard) on the same port, whatever the
// scheme, since http and ws (https and wss) reach the same server.
func (o origin) covers(r origin) bool {
	if o.effectivePort() != r.effectivePort() {
		return false
	}
	if h, ok := strings.CutPrefix(o.host, "*."); ok {
		return strings.HasSuffix(r.host, "."+h)
	}
	return o.host == r.host
}

// effectivePort is the port, or the scheme's default one.
func (o origin) effectivePort() string {
	if o.port != "" {
		return o.port
	}
	if secure(o.scheme) {
		return "443"
	}
	return "80"
}

func secure(scheme string) bool { return scheme == "https" || scheme == "wss" }

func validPort(p string) bool {
	if len(p) == 0 || len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validHost accepts a DNS name or IPv4 address: letters, digits, hyphens,
// dots, no empty label.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// validIPv6 says whether h, what stands between the brackets, is an IPv6
// address written in lower case, without a zone.
func validIPv6(h string) bool {
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == ':' || c == '.') {
			return false
		}
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is6() && a.Zone() == ""
}
