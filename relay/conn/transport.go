package conn

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
)

// Streamable HTTP facts the transport watches.
const (
	methodHeader      = "Mcp-Method" // names the JSON-RPC method from 2026-07-28 on
	methodListen      = "subscriptions/listen"
	eventStreamType   = "text/event-stream"
	headerContentType = "Content-Type"
)

// wrapTransport returns a copy of hc whose transport is wrap of hc's own
// (http.DefaultTransport when hc has none).
func wrapTransport(hc *http.Client, wrap func(base http.RoundTripper) http.RoundTripper) *http.Client {
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := *hc
	c.Transport = wrap(base)
	return &c
}

// watchingClient returns a copy of hc whose transport is an [observer]
// calling streamEnded once when the subscriptions/listen stream of the
// session it serves ends.
func watchingClient(hc *http.Client, streamEnded func()) *http.Client {
	return wrapTransport(hc, func(base http.RoundTripper) http.RoundTripper {
		return &observer{base: base, streamEnded: streamEnded}
	})
}

// observer is the RoundTripper under one MCP session. It caps response
// bodies that are not event streams at maxMessageBytes (the go-sdk reads them
// whole; events are capped by the transport's MaxEventSize), and reports the
// end of an established subscriptions/listen stream, which the go-sdk does
// not surface: without it a session would silently stop hearing list
// changes.
type observer struct {
	base        http.RoundTripper
	streamEnded func()
}

// RoundTrip implements [http.RoundTripper].
func (o *observer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := o.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get(headerContentType))
	switch {
	case req.Header.Get(methodHeader) == methodListen && resp.StatusCode == http.StatusOK:
		resp.Body = &watchedBody{ReadCloser: resp.Body, ended: o.streamEnded}
	case mediaType != eventStreamType:
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: maxMessageBytes}
	}
	return resp, nil
}

// watchedBody calls ended once when its stream ends: a read error (EOF
// included) or a close.
type watchedBody struct {
	io.ReadCloser
	ended func()
	once  sync.Once
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.ended)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.once.Do(b.ended)
	return b.ReadCloser.Close()
}

// limitedBody fails reads past its limit instead of truncating silently.
type limitedBody struct {
	io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errBodyTooLarge
	}
	// Reading one byte past the limit tells a body of exactly the limit from
	// a longer one.
	n, err := b.ReadCloser.Read(p[:min(int64(len(p)), b.left+1)])
	if int64(n) > b.left {
		n, b.left = int(b.left), -1
		return n, errBodyTooLarge
	}
	b.left -= int64(n)
	return n, err
}

// errBodyTooLarge fails the read of a response body over maxMessageBytes.
var errBodyTooLarge = fmt.Errorf("response body over %d bytes", maxMessageBytes)
