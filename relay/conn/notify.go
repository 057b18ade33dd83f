package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Server notifications the agent gateway passes on: resources/updated and
// the server's log messages. Listeners are called from the go-sdk's
// notification goroutine and must not block. What agents ask of a server
// (subscriptions, log levels) is held here beside what the person asked,
// so that neither undoes the other.

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

// passLog hands a log message to the listeners, unless it is too large.
func (c *Conn) passLog(p *mcp.LoggingMessageParams) {
	if b, err := json.Marshal(p); err != nil || len(b) > maxLogBytes {
		return
	}
	c.logs.each(p)
}

// HoldSubscription subscribes an agent to updates of the resource at uri.
// Holds are counted with the person's subscriptions ([Conn.Subscribe]):
// the server is asked only for the first, and told by
// [Conn.ReleaseSubscription] only after the last. Holds are made again on a
// new session, like the person's. The agents of one connection hold at
// most [wire.MaxSubscriptions] resources, as the person does.
func (c *Conn) HoldSubscription(ctx context.Context, uri string) error {
	if !validURI(uri) {
		return newError(BadRequest, fmt.Sprintf("a subscription needs a resource URI of at most %d characters, on one line", maxURIRunes))
	}
	c.mu.Lock()
	if c.agentSubs == nil {
		c.agentSubs = map[string]int{}
	}
	if c.agentSubs[uri] == 0 && len(c.agentSubs) >= wire.MaxSubscriptions {
		c.mu.Unlock()
		return newError(BadRequest, fmt.Sprintf("agents may subscribe to at most %d resources of one server", wire.MaxSubscriptions))
	}
	c.agentSubs[uri]++
	_, person := c.subs[uri]
	first := c.agentSubs[uri] == 1 && !person
	c.mu.Unlock()
	if !first {
		return nil
	}
	_, err := onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*struct{}, error) {
		return &struct{}{}, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	if err != nil {
		c.mu.Lock()
		c.releaseLocked(uri)
		c.mu.Unlock()
	}
	return err
}

// ReleaseSubscription ends one hold of [Conn.HoldSubscription].
func (c *Conn) ReleaseSubscription(ctx context.Context, uri string) error {
	c.mu.Lock()
	last := c.releaseLocked(uri)
	_, person := c.subs[uri]
	c.mu.Unlock()
	if !last || person {
		return nil
	}
	_, err := onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*struct{}, error) {
		return &struct{}{}, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
	return err
}

// releaseLocked counts one hold of uri released and reports whether it was
// the last.
func (c *Conn) releaseLocked(uri string) bool {
	if c.agentSubs[uri] <= 0 {
		return false
	}
	c.agentSubs[uri]--
	if c.agentSubs[uri] > 0 {
		return false
	}
	delete(c.agentSubs, uri)
	return true
}

// heldByAgents reports whether an agent holds a subscription to uri.
func (c *Conn) heldByAgents(uri string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agentSubs[uri] > 0
}

// SetAgentLogLevel sets the level of log messages that holder (an agent's
// session) wants, one of [wire.LogLevels]. The server is asked for the
// lowest level anyone wants (the person's, [Conn.SetLogLevel], or an
// agent's); each listener filters what it passes on.
func (c *Conn) SetAgentLogLevel(ctx context.Context, holder any, level wire.LogLevel) error {
	if wire.LevelRank(level) < 0 {
		return newError(BadRequest, "unknown log level "+wire.Sanitize(string(level), 20))
	}
	c.mu.Lock()
	if c.agentLevels == nil {
		c.agentLevels = map[any]wire.LogLevel{}
	}
	c.agentLevels[holder] = level
	c.mu.Unlock()
	return c.reapplyLogLevel(ctx)
}

// ReleaseAgentLogLevel forgets the level holder wanted.
func (c *Conn) ReleaseAgentLogLevel(ctx context.Context, holder any) error {
	c.mu.Lock()
	_, ok := c.agentLevels[holder]
	delete(c.agentLevels, holder)
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return c.reapplyLogLevel(ctx)
}
