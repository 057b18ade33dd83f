package conn

import (
	"context"
	"encoding/json"
	"errors"
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
// capping bodies at limit bytes, and answers to calls whose result is
// capped (see [resultMethods]) at resultLimit bytes and [resultRoom], calling streamEnded once when the
// subscriptions/listen stream of the session it serves ends, and broken
// when a request or response body fails.
func watchingClient(hc *http.Client, limit, resultLimit int64, streamEnded, broken func()) *http.Client {
	return wrapTransport(hc, func(base http.RoundTripper) http.RoundTripper {
		return &observer{base: base, limit: limit, resultLimit: resultLimit, streamEnded: streamEnded, broken: broken}
	})
}

// observer is the RoundTripper under one MCP session. It caps a response
// body that is not an event stream, and each event of a call's stream, at
// limit bytes, refusing the call alone (see [eventLimiter] and [callBody]);
// events of other streams are capped by the transport's MaxEventSize, which
// the go-sdk enforces by failing the connection. An answer to a call whose
// result the relay caps is cut sooner, at that cap: it is counted as it
// streams, so that a call never holds more of an answer than it could keep.
// It reports what the go-sdk
// does not surface:
//   - the end of an established subscriptions/listen stream: without it a
//     session would silently stop hearing list changes;
//   - a request whose connection fails, or a response body whose
//     connection breaks before its end, while its caller still waits: the server may have died
//     mid-call, which the go-sdk would only notice after trying to resume
//     the stream for several seconds. The connection probes at once.
type observer struct {
	base        http.RoundTripper
	limit       int64
	resultLimit int64 // the relay's cap on a result's JSON
	streamEnded func()
	broken      func()
}

// RoundTrip implements [http.RoundTripper].
func (o *observer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := o.base.RoundTrip(req)
	if err != nil {
		if req.Context().Err() == nil && connectionBroke(err) {
			o.broken()
		}
		return nil, err
	}
	resp.Body = &brokenBody{ReadCloser: resp.Body, ctx: req.Context(), broken: o.broken}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get(headerContentType))
	limit := o.limit
	if resultMethods[requestMethod(req)] {
		limit = min(limit, o.resultLimit+resultRoom)
	}
	switch {
	case req.Header.Get(methodHeader) == methodListen && resp.StatusCode == http.StatusOK:
		resp.Body = &watchedBody{ReadCloser: resp.Body, ended: o.streamEnded}
	case mediaType == eventStreamType && req.Method == http.MethodPost:
		resp.Body = &eventLimiter{ReadCloser: resp.Body, req: req, limit: limit - refusalRoom}
	case mediaType != eventStreamType:
		resp.Body = &callBody{ReadCloser: resp.Body, req: req, limit: limit}
	}
	return resp, nil
}

// resultMethods are the requests whose result the relay caps at
// [Config.MaxResultBytes] of JSON.
var resultMethods = map[string]bool{
	"tools/call":          true,
	"resources/read":      true,
	"prompts/get":         true,
	"completion/complete": true,
	"tasks/result":        true,
}

// resultRoom is what an answer may carry beyond its result: the JSON-RPC
// envelope, and an event's framing.
const resultRoom = 64 << 10

// requestMethod is the JSON-RPC method req posts, or "".
func requestMethod(req *http.Request) string {
	if m := req.Header.Get(methodHeader); m != "" {
		return m
	}
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	var m struct {
		Method string `json:"method"`
	}
	if json.NewDecoder(body).Decode(&m) != nil {
		return ""
	}
	return m.Method
}

// brokenBody calls broken when a read fails because the connection broke
// (not at the body's end) while its request's context is live.
type brokenBody struct {
	io.ReadCloser
	ctx    context.Context
	broken func()
}

func (b *brokenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() == nil && connectionBroke(err) {
		b.broken()
	}
	return n, err
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

// errBodyTooLarge fails the read of a response body over the limit.
var errBodyTooLarge = errors.New("response body over the relay's limit")
