package netguard

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// maxRedirects is how many redirects a [Policy.Client] follows.
const maxRedirects = 10

// Client returns a client using [Policy.Transport] with the given overall
// timeout (0 means none, as for [http.Client]). Each redirect hop must be
// http or https; a literal IP or metadata name in it is checked before any
// connection, other names when dialed. At most ten redirects are followed.
func (p Policy) Client(timeout time.Duration) *http.Client {
	return &http.Client{
		Transport:     p.Transport(),
		CheckRedirect: p.checkRedirect,
		Timeout:       timeout,
	}
}

// checkRedirect vets the next hop req; via holds the requests made so far.
func (p Policy) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	switch scheme := strings.ToLower(req.URL.Scheme); scheme {
	case "http", "https":
	default:
		return &BlockedError{Reason: fmt.Sprintf("redirect to scheme %q (only http and https are followed)", scheme)}
	}
	host := req.URL.Hostname()
	if host == "" {
		return &BlockedError{Reason: "redirect without a host"}
	}
	if err := p.checkHost(host); err != nil {
		return fmt.Errorf("redirect hop: %w", err)
	}
	return nil
}
