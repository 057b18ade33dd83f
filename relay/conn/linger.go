package conn

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// drainGrace is how long a response body may still be read after its
// request's context ended.
const drainGrace = 100 * time.Millisecond

// lingering is the RoundTripper that keeps connections to a server alive
// across calls. The go-sdk returns a call's result as soon as the event
// carrying it is read, and reads the rest of that response stream (its
// last chunk) afterwards; the relay meanwhile ends the call's context,
// which made net/http tear the connection down whenever the last chunk had
// not arrived yet, and the next call dial a new one (every few calls on
// loopback). Once a response has come, the end of the request's context
// reaches the transport drainGrace later, unless the body was closed
// first; before the response it reaches it at once.
type lingering struct {
	base http.RoundTripper
}

// RoundTrip implements [http.RoundTripper].
func (l lingering) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	var answered atomic.Bool
	stop := context.AfterFunc(parent, func() {
		if answered.Load() {
			time.AfterFunc(drainGrace, cancel)
			return
		}
		cancel()
	})
	resp, err := l.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	answered.Store(true)
	resp.Body = &lingeringBody{ReadCloser: resp.Body, release: func() { stop(); cancel() }}
	return resp, nil
}

// lingeringBody releases its request's context once closed.
type lingeringBody struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

func (b *lingeringBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
