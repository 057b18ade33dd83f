package readalong

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
)

// The go-sdk hands a server's notifications to their handlers from a queue
// of its own, while it hands a response to its caller at once: a log
// message or a progress notification the server sent on a call's stream
// before the call's result may reach its listeners after the call
// returned, when the call it belongs to is over. So [Notices] counts the
// log and progress messages read along and those their handlers handled,
// and a call that returns first waits (briefly) until the messages read
// before its result are handled.

// maxNoticeSettle bounds that wait: a message read along that the go-sdk
// does not hand over (one it cannot decode) must not hold up the calls
// after it.
const maxNoticeSettle = 500 * time.Millisecond

// The methods of the notifications a call waits for.
const (
	methodLogMessage = "notifications/message"
	methodProgress   = "notifications/progress"
)

// Notices counts the log and progress messages read and handled. The zero
// value is ready; it is safe for concurrent use.
type Notices struct {
	mu       sync.Mutex
	seen     uint64
	passed   uint64
	progress chan struct{} // closed when passed grows; nil when nobody waits
}

// scan counts msg, one message read along, if it is a log or progress
// message.
func (o *Notices) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(methodLogMessage)) && !bytes.Contains(msg, []byte(methodProgress)) {
		return
	}
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || (m.Method != methodLogMessage && m.Method != methodProgress) {
		return
	}
	o.mu.Lock()
	o.seen++
	o.mu.Unlock()
}

// Pass counts one log or progress message handled; the handler of each
// calls it once.
func (o *Notices) Pass() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.passed++
	if o.progress != nil {
		close(o.progress)
		o.progress = nil
	}
}

// Settle waits until the messages read so far are handled, until ctx ends
// or at most maxNoticeSettle, after which it counts them handled.
func (o *Notices) Settle(ctx context.Context) {
	o.mu.Lock()
	target := o.seen
	o.mu.Unlock()
	timer := time.NewTimer(maxNoticeSettle)
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
