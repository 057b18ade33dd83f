package conn

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server notifications the agent gateway passes on: resources/updated and
// the server's log messages. Listeners are called from the go-sdk's
// notification goroutine and must not block.

// maxLogBytes caps a log message passed on; a larger one is dropped.
const maxLogBytes = 64 << 10

// listeners is a set of functions that hear one kind of notification. The
// zero value is ready; it is safe for concurrent use.
type listeners[T any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(T)
}

// add adds fn until stop is called.
func (l *listeners[T]) add(fn func(T)) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]func(T){}
	}
	l.next++
	id := l.next
	l.fns[id] = fn
	return func() {
		l.mu.Lock()
		delete(l.fns, id)
		l.mu.Unlock()
	}
}

// each calls every listener with v.
func (l *listeners[T]) each(v T) {
	l.mu.Lock()
	fns := make([]func(T), 0, len(l.fns))
	for _, fn := range l.fns {
		fns = append(fns, fn)
	}
	l.mu.Unlock()
	for _, fn := range fns {
		fn(v)
	}
}

// OnResourceUpdated calls fn with the URI of each resources/updated
// notification of the server, until stop is called.
func (c *Conn) OnResourceUpdated(fn func(uri string)) (stop func()) { return c.updated.add(fn) }

// OnLog calls fn with each log message of the server, until stop is called.
func (c *Conn) OnLog(fn func(*mcp.LoggingMessageParams)) (stop func()) { return c.logs.add(fn) }

// resourceUpdated is the go-sdk's ResourceUpdatedHandler of c.
func (c *Conn) resourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if req.Params != nil {
		c.updated.each(req.Params.URI)
	}
}

// logged is the go-sdk's LoggingMessageHandler of c.
func (c *Conn) logged(_ context.Context, req *mcp.LoggingMessageRequest) {
	if req.Params == nil {
		return
	}
	if b, err := json.Marshal(req.Params); err != nil || len(b) > maxLogBytes {
		return
	}
	c.logs.each(req.Params)
}

// SubscribeMCP subscribes to updates of the resource at uri.
func (c *Conn) SubscribeMCP(ctx context.Context, uri string) error {
	_, err := passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*struct{}, error) {
		return &struct{}{}, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	return err
}

// UnsubscribeMCP ends a subscription to the resource at uri.
func (c *Conn) UnsubscribeMCP(ctx context.Context, uri string) error {
	_, err := passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*struct{}, error) {
		return &struct{}{}, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
	return err
}

// SetLoggingLevelMCP sets the level of the log messages the server sends.
func (c *Conn) SetLoggingLevelMCP(ctx context.Context, level mcp.LoggingLevel) error {
	_, err := passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*struct{}, error) {
		return &struct{}{}, cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
	})
	return err
}
