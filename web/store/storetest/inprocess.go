package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Subscription is one dashboard attached to a relay session, as the relay's
// WebSocket endpoint sees it: the methods of a session's subscriber. A test
// adapts its session with a closure:
//
//	storetest.InProcess(func(h wire.Hello) storetest.Subscription { return s.Subscribe(h) })
type Subscription interface {
	// Outbox delivers the encoded frames for the dashboard, in order.
	Outbox() <-chan []byte
	// Done is closed when the dashboard must be disconnected.
	Done() <-chan struct{}
	// CloseStatus says why Done was closed.
	CloseStatus() (code wire.CloseCode, reason string)
	// HandleOp runs one op frame and answers it through Outbox.
	HandleOp(f wire.Frame)
	// Close detaches the dashboard.
	Close()
}

// InProcess returns a dialer whose sockets attach to a relay in the same
// process, as the relay's WebSocket endpoint does without authenticating:
// a socket's hello (its first frame but an auth frame, which it ignores)
// calls subscribe; the frames from Outbox reach the client; the client's
// op frames go to HandleOp; when Done is closed the client gets the
// socket's close with its code (store.CloseAbnormal for none). Closing the
// socket from the client closes the subscription.
func InProcess(subscribe func(wire.Hello) Subscription) store.Dialer {
	return func(_ string, h store.Handlers) (store.Socket, error) {
		s := &procSocket{subscribe: subscribe, h: h}
		go h.Open()
		return s, nil
	}
}

// procSocket is a socket of [InProcess].
type procSocket struct {
	subscribe func(wire.Hello) Subscription
	h         store.Handlers

	mu       sync.Mutex
	sub      Subscription // nil until the hello
	closedBy int          // the client's close code; 0 while it did not close
	ended    bool         // Closed was reported, or will be
}

var errSocketClosed = errors.New("storetest: the socket is closed")

// Send implements [store.Socket].
func (s *procSocket) Send(text string) error {
	f, err := wire.Decode([]byte(text))
	if err != nil {
		return fmt.Errorf("storetest: the client sent a frame that does not decode: %w", err)
	}
	s.mu.Lock()
	sub, gone := s.sub, s.ended || s.closedBy != 0
	s.mu.Unlock()
	switch {
	case gone:
		return errSocketClosed
	case f.Type == wire.TypeAuth:
		return nil
	case f.Type == wire.TypeHello && sub == nil:
		return s.hello(f)
	case f.Type == wire.TypeOp && sub != nil:
		sub.HandleOp(f)
		return nil
	}
	return fmt.Errorf("storetest: the client sent an unexpected %s frame", f.Type)
}

// hello subscribes and starts moving frames.
func (s *procSocket) hello(f wire.Frame) error {
	var hello wire.Hello
	if err := json.Unmarshal(f.Data, &hello); err != nil {
		return fmt.Errorf("storetest: the client's hello does not decode: %w", err)
	}
	sub := s.subscribe(hello)
	s.mu.Lock()
	s.sub = sub
	s.mu.Unlock()
	go s.pump(sub)
	return nil
}

// pump moves frames from sub to the client until sub is done, as the
// relay's endpoint does: frames still queued then are not delivered.
func (s *procSocket) pump(sub Subscription) {
	for {
		select {
		case b := <-sub.Outbox():
			s.h.Message(string(b))
		case <-sub.Done():
			s.mu.Lock()
			code := s.closedBy
			s.ended = true
			s.mu.Unlock()
			if code == 0 {
				c, _ := sub.CloseStatus()
				code = int(c)
			}
			if code == 0 {
				code = store.CloseAbnormal
			}
			s.h.Closed(code)
			return
		}
	}
}

// Close implements [store.Socket].
func (s *procSocket) Close(code int, _ string) {
	s.mu.Lock()
	if s.closedBy != 0 || s.ended {
		s.mu.Unlock()
		return
	}
	s.closedBy = code
	sub := s.sub
	if sub == nil {
		s.ended = true
	}
	s.mu.Unlock()
	if sub != nil {
		sub.Close() // the pump reports the close
		return
	}
	go s.h.Closed(code)
}

// drop ends the socket from the relay's side.
func (s *procSocket) drop() {
	s.mu.Lock()
	sub := s.sub
	s.mu.Unlock()
	if sub != nil {
		sub.Close()
		return
	}
	s.Close(store.CloseAbnormal, "dropped")
}
