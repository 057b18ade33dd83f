package conn

import (
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressTokens routes notifications/progress to the calls that asked for
// them, by progress token.
type progressTokens struct {
	mu    sync.Mutex
	next  uint64
	calls map[string]*progressSink
}

// progressSink forwards progress to one call until it is stopped.
type progressSink struct {
	mu      sync.Mutex
	stopped bool
	fn      func(*mcp.ProgressNotificationParams)
}

// add registers fn and returns its token and a stop function. After stop
// returns, fn is not called again.
func (p *progressTokens) add(fn func(*mcp.ProgressNotificationParams)) (token string, stop func()) {
	sink := &progressSink{fn: fn}
	p.mu.Lock()
	p.next++
	token = "switchboard-" + strconv.FormatUint(p.next, 10)
	if p.calls == nil {
		p.calls = make(map[string]*progressSink)
	}
	p.calls[token] = sink
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.calls, token)
		p.mu.Unlock()
		sink.mu.Lock()
		sink.stopped = true
		sink.mu.Unlock()
	}
}

// deliver forwards one notification to the call holding its token, if any.
func (p *progressTokens) deliver(n *mcp.ProgressNotificationParams) {
	token, ok := n.ProgressToken.(string)
	if !ok {
		return
	}
	p.mu.Lock()
	sink := p.calls[token]
	p.mu.Unlock()
	if sink == nil {
		return
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if !sink.stopped {
		sink.fn(n)
	}
}
