package netguard

import (
	"net"
	"net/http"
	"time"
)

// Transport defaults, those of [http.DefaultTransport].
const (
	maxIdleConns          = 100
	idleConnTimeout       = 90 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	expectContinueTimeout = 1 * time.Second
)

// Transport returns a transport dialing through [Policy.Dialer], refusing
// metadata host names before resolution, and never using a proxy (an
// environment proxy would connect on our behalf and bypass the check).
// HTTP/2 is negotiated over TLS as usual.
func (p Policy) Transport() *http.Transport {
	return p.transportWith(p.Dialer())
}

// transportWith builds the transport of [Policy.Transport] around d.
func (p Policy) transportWith(d *net.Dialer) *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           p.guardNames(d.DialContext),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          maxIdleConns,
		IdleConnTimeout:       idleConnTimeout,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ExpectContinueTimeout: expectContinueTimeout,
	}
}
