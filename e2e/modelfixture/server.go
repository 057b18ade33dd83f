package modelfixture

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// DefaultWait is how long Next and Await wait when Options says nothing.
const DefaultWait = 10 * time.Second

// DefaultModel is the model an answer names when its request names none.
const DefaultModel = "fixture-model"

// maxBody bounds the request body the fixture reads.
const maxBody = 32 << 20

// Options configure a fixture.
type Options struct {
	// Key, when set, must come as OpenAI's "Authorization: Bearer KEY" or
	// Anthropic's "x-api-key: KEY"; a request without it is recorded as
	// Rejected and answered 401 in the provider's error JSON.
	Key string
	// Replies are queued at the start, answered in order.
	Replies []Reply
	// Decide answers a request when the queue is empty. Without it, such
	// a request fails the test and gets a 500.
	Decide func(*Request) Reply
	// Wait bounds Next and Await; default DefaultWait.
	Wait time.Duration
}

// Server is a running fixture on 127.0.0.1. Its methods are safe for
// concurrent use, but Next and Await must be called from the test's
// goroutine, since they may fail it.
type Server struct {
	report func(format string, args ...any) // says a request had no reply scripted
	ts     *httptest.Server
	wait   time.Duration

	mu      sync.Mutex
	queue   []Reply
	decide  func(*Request) Reply
	key     string
	reqs    []*Request
	next    int           // the index of the request Next returns next
	arrived chan struct{} // closed, and replaced, when a request is recorded
}

// Start runs a fixture until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, stop, err := Run(opts, t.Errorf)
	if err != nil {
		t.Fatalf("modelfixture: %v", err)
	}
	t.Cleanup(stop)
	return s
}

// Run runs a fixture for a program that is not a test (the bench) until
// stop is called; report says when a request had no reply scripted (it
// gets a 500). Next and Await still take the testing.TB they may fail.
func Run(opts Options, report func(format string, args ...any)) (s *Server, stop func(), err error) {
	s = &Server{report: report, wait: opts.Wait, queue: append([]Reply(nil), opts.Replies...), decide: opts.Decide,
		key: opts.Key, arrived: make(chan struct{})}
	if s.wait <= 0 {
		s.wait = DefaultWait
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handler(OpenAI))
	mux.HandleFunc("POST /v1/messages", s.handler(Anthropic))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	// Ending the base context first ends the answers still held (endless
	// streams, latencies), which Close would otherwise wait for.
	base, end := context.WithCancel(context.Background())
	s.ts = &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}}
	s.ts.Start()
	return s, func() {
		end()
		s.ts.Close()
	}, nil
}

// URL is the fixture's root, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.ts.URL }

// OpenAIURL is the OpenAI-compatible base URL, ending in /v1.
func (s *Server) OpenAIURL() string { return s.ts.URL + "/v1" }

// AnthropicURL is the Anthropic base URL; the API is under /v1.
func (s *Server) AnthropicURL() string { return s.ts.URL }

// Queue adds replies to answer the next requests with, in order.
func (s *Server) Queue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// SetDecide sets the function answering requests when the queue is empty.
func (s *Server) SetDecide(decide func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decide = decide
}

// Requests are the requests the fixture got so far, in order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Next waits for the request after the one Next returned last (the first
// request at first), failing the test after Options.Wait.
func (s *Server) Next(t testing.TB) *Request {
	t.Helper()
	s.mu.Lock()
	i := s.next
	s.mu.Unlock()
	r := s.Await(t, i+1)[i]
	s.mu.Lock()
	s.next = max(s.next, i+1)
	s.mu.Unlock()
	return r
}

// Await waits until the fixture has got n requests in all and returns
// the first n, failing the test after Options.Wait.
func (s *Server) Await(t testing.TB, n int) []*Request {
	t.Helper()
	timeout := time.NewTimer(s.wait)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		got, arrived := len(s.reqs), s.arrived
		if got >= n {
			reqs := append([]*Request(nil), s.reqs[:n]...)
			s.mu.Unlock()
			return reqs
		}
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-timeout.C:
			t.Fatalf("modelfixture: %d request(s) after %v, want %d", got, s.wait, n)
			return nil
		}
	}
}

// handler serves one provider's endpoint.
func (s *Server) handler(p Provider) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, readErr := io.ReadAll(io.LimitReader(r.Body, maxBody))
		req := &Request{Provider: p, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, done: make(chan struct{})}
		defer close(req.done)
		decodeErr := req.decode()
		req.Rejected = !s.keyOK(p, r.Header)
		reply, scripted := s.record(req, !req.Rejected && readErr == nil && decodeErr == nil)
		setRequestID(w, req)
		switch {
		case req.Rejected:
			writeError(w, req, http.StatusUnauthorized, "", "")
		case readErr != nil || decodeErr != nil:
			writeError(w, req, http.StatusBadRequest, "", fmt.Sprintf("the body is not a request: %v", errorsOf(readErr, decodeErr)))
		case !scripted:
			s.report("modelfixture: request %d (%s) has no reply scripted", req.N, p)
			writeError(w, req, http.StatusInternalServerError, "", "modelfixture: no reply scripted")
		default:
			answer(w, r, req, reply)
		}
	}
}

// errorsOf is the first error that is not nil.
func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// keyOK reports whether a request carries the key, if one is required.
func (s *Server) keyOK(p Provider, h http.Header) bool {
	if s.key == "" {
		return true
	}
	if p == OpenAI {
		return h.Get("Authorization") == "Bearer "+s.key
	}
	return h.Get("x-api-key") == s.key
}

// record numbers and records a request and wakes the waiters; when take,
// it takes the request's reply: the next queued one, else Decide's.
func (s *Server) record(req *Request, take bool) (Reply, bool) {
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	close(s.arrived)
	s.arrived = make(chan struct{})
	decide := s.decide
	var reply Reply
	queued := take && len(s.queue) > 0
	if queued {
		reply, s.queue = s.queue[0], s.queue[1:]
	}
	s.mu.Unlock()
	if queued || !take {
		return reply, true
	}
	if decide == nil {
		return Reply{}, false
	}
	return decide(req), true
}
