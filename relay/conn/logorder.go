package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
)

// The go-sdk hands a server's notifications to their handlers from a queue
// of its own, while it hands a response to its caller at once: a log
// message the server sent on a call's stream before the call's result may
// reach the listeners (notify.go) after the call returned, when the agent's
// call it belongs to is over. So the read-along counts the log messages
// read, the handler those handled, and a call that returns first waits
// (briefly) until the messages read before its result are handled.

// maxLogSettle bounds that wait: a message read along that the go-sdk does
// not hand over (one it cannot decode) must not hold up the calls after it.
const maxLogSettle = 500 * time.Millisecond

// methodLogMessage is the method of a server's log message.
const methodLogMessage = "notifications/message"

// logOrder counts the log messages read and handled. The zero value is
// ready; it is safe for concurrent use.
type logOrder struct {
	mu       sync.Mutex
	seen     uint64
	passed   uint64
	progress chan struct{} // closed when passed grows; nil when nobody waits
}

// scan counts msg, one message read along, if it is a log message.
func (o *logOrder) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(methodLogMessage)) {
		return
	}
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != methodLogMessage {
		return
	}
	o.mu.Lock()
	o.seen++
	o.mu.Unlock()
}

// pass counts one log message handled.
func (o *logOrder) pass() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.passed++
	if o.progress != nil {
		close(o.progress)
		o.progress = nil
	}
}

// settle waits until the log messages read so far are handled, until ctx
// ends or at most maxLogSettle, after which it counts them handled.
func (o *logOrder) settle(ctx context.Context) {
	o.mu.Lock()
	target := o.seen
	o.mu.Unlock()
	timer := time.NewTimer(maxLogSettle)
	defer timer.Stop()
	for {
		o.mu.Lock()
		if o.passed >= target {
			o.mu.Unlock()
			return
		}
		if o.progress == nil {
			o.progress = make(chan struct{})
		}
		wake := o.progress
		o.mu.Unlock()
		select {
		case <-wake:
			continue
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		o.mu.Lock()
		o.passed = max(o.passed, target)
		o.mu.Unlock()
		return
	}
}
