package conn

import (
	"net/http"
	"strings"
)

// headerTransport adds a server's custom headers to every request for the
// server's origin: the go-sdk transports have no header field, and a
// redirect to another origin must not carry them (their values are secrets,
// an API key most often).
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
	origin  string // scheme://host[:port] of the server
}

// withHeaders returns hc with headers added to its requests to the server;
// hc itself when there are none.
func (c *Conn) withHeaders(hc *http.Client) *http.Client {
	if len(c.cfg.Headers) == 0 {
		return hc
	}
	h := http.Header{}
	for name, value := range c.cfg.Headers {
		h.Set(name, value)
	}
	return wrapTransport(hc, func(base http.RoundTripper) http.RoundTripper {
		return &headerTransport{base: base, headers: h, origin: origin(c.cfg.URL)}
	})
}

// RoundTrip implements [http.RoundTripper]. It leaves req untouched, as the
// contract asks, and sends a copy with the headers.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(origin(req.URL.String()), t.origin) {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for name, values := range t.headers {
		r.Header[name] = values
	}
	return t.base.RoundTrip(r)
}
