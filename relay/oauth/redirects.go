package oauth

import (
	"errors"
	"fmt"
	"net/http"
)

// maxRedirects is how many redirects a metadata request follows, as
// net/http does by default.
const maxRedirects = 10

// errDowngrade refuses a redirect from https to http.
var errDowngrade = errors.New("refused a redirect from https to http")

// noRedirect returns a copy of hc that follows no redirect: a request that
// carries secrets (a token request, a registration) must not be resent to
// wherever a redirect points. The 3xx answer is returned as is.
func noRedirect(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// noDowngrade returns a copy of hc that refuses to follow a redirect from
// https to http, and otherwise applies hc's own redirect policy (net/http's
// default when it has none): metadata fetched over https must not come
// from a plain-text hop.
func noDowngrade(hc *http.Client) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" {
			for _, prev := range via {
				if prev.URL.Scheme == "https" {
					return errDowngrade
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &c
}

// isRedirect reports a 3xx status.
func isRedirect(status int) bool {
	return status >= http.StatusMultipleChoices && status < http.StatusBadRequest
}
