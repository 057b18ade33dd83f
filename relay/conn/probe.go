package conn

import (
	"net/http"
	"sync"
)

// firstAnswer is the RoundTripper under one connection attempt that notes
// the status of the first answer the server's endpoint gave: what tells an
// endpoint of the other transport (400, 404, 405) from a server that is
// down, which the go-sdk's errors do not say in a form to rely on.
type firstAnswer struct {
	base     http.RoundTripper
	endpoint string

	mu     sync.Mutex
	status int // 0 until the endpoint answered
}

// RoundTrip implements [http.RoundTripper].
func (f *firstAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := f.base.RoundTrip(req)
	if err == nil && req.URL.String() == f.endpoint {
		f.mu.Lock()
		if f.status == 0 {
			f.status = resp.StatusCode
		}
		f.mu.Unlock()
	}
	return resp, err
}

// Status returns the status of the endpoint's first answer, 0 for none.
func (f *firstAnswer) Status() int {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

// wrongTransport reports whether status, the first answer of the endpoint,
// says it speaks another transport. 401 and 403 never do: they ask for
// authorization.
func wrongTransport(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}
