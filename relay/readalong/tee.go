package readalong

import (
	"context"
	"mime"
	"net/http"
)

// HTTP facts the tee looks at.
const (
	headerContentType = "Content-Type"
	mediaTypeJSON     = "application/json"
	eventStreamType   = "text/event-stream"
)

// Tee returns a RoundTripper that sends every request through base and
// shows scan the messages of each successful JSON or event stream
// response, with the context of the request they answer, as the go-sdk
// reads them: without holding them back or changing them. A message over
// [MaxScanBytes] passes unread.
func Tee(base http.RoundTripper, scan func(ctx context.Context, msg []byte)) http.RoundTripper {
	return &tee{base: base, scan: scan}
}

// tee is the RoundTripper of [Tee].
type tee struct {
	base http.RoundTripper
	scan func(ctx context.Context, msg []byte)
}

// RoundTrip implements [http.RoundTripper].
func (t *tee) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	ctx := req.Context()
	see := func(msg []byte) { t.scan(ctx, msg) }
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get(headerContentType))
	switch mediaType {
	case mediaTypeJSON:
		resp.Body = &scannedBody{ReadCloser: resp.Body, scanner: &jsonScanner{scan: see}}
	case eventStreamType:
		resp.Body = &scannedBody{ReadCloser: resp.Body, scanner: newEventScanner(see)}
	}
	return resp, nil
}
