package session

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// outboxSize is how many frames may wait for one dashboard before it is
// judged too slow and disconnected.
const outboxSize = 256

// Subscriber is one open dashboard of a session. The hub writes the frames
// from Outbox to the socket and closes the socket when Done is closed.
type Subscriber struct {
	session *Session
	ctx     context.Context // cancelled when the subscriber closes; running ops stop with it
	cancel  context.CancelFunc
	outbox  chan []byte
	// overflowed is set when a frame could not be queued; later frames are
	// dropped too, so the dashboard never applies a stream with a hole.
	overflowed atomic.Bool

	mu          sync.Mutex
	done        chan struct{}
	closeCode   wire.CloseCode
	closeReason string
	ops         map[string]context.CancelCauseFunc // running ops by id
}

func newSubscriber(s *Session) *Subscriber {
	ctx, cancel := context.WithCancel(context.Background())
	return &Subscriber{
		session: s,
		ctx:     ctx,
		cancel:  cancel,
		outbox:  make(chan []byte, outboxSize),
		done:    make(chan struct{}),
		ops:     map[string]context.CancelCauseFunc{},
	}
}

// Outbox delivers the encoded frames to write, in order.
func (sub *Subscriber) Outbox() <-chan []byte { return sub.outbox }

// Done is closed when the subscriber must be disconnected: it was too slow,
// the relay is stopping, or Close was called.
func (sub *Subscriber) Done() <-chan struct{} { return sub.done }

// CloseStatus says why Done was closed, as a WebSocket close code and reason.
func (sub *Subscriber) CloseStatus() (code wire.CloseCode, reason string) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.closeCode, sub.closeReason
}

// Close detaches the dashboard and cancels its running ops.
func (sub *Subscriber) Close() {
	sub.closeWith(0, "")
}

// send queues a frame without ever blocking; a full outbox disconnects the
// subscriber, which resyncs when it reconnects.
func (sub *Subscriber) send(b []byte) {
	if sub.overflowed.Load() {
		return // nothing after a dropped frame: the dashboard must resync
	}
	select {
	case <-sub.done:
	case sub.outbox <- b:
	default:
		if sub.overflowed.CompareAndSwap(false, true) {
			go sub.closeWith(wire.CloseTooSlow, "too slow: reconnect to resync")
		}
	}
}

func (sub *Subscriber) closeWith(code wire.CloseCode, reason string) {
	sub.mu.Lock()
	select {
	case <-sub.done:
		sub.mu.Unlock()
		return
	default:
	}
	sub.closeCode, sub.closeReason = code, reason
	close(sub.done)
	sub.mu.Unlock()
	sub.cancel()
	sub.session.unsubscribe(sub)
}
