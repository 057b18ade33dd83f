package conn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// subscribeTimeout bounds one resources/subscribe made again on a new session.
const subscribeTimeout = 10 * time.Second

// updatedLayout is how [wire.Subscription.Updated] writes a time.
const updatedLayout = "2006-01-02T15:04:05.000Z07:00"

// Subscribe subscribes to the resource at uri and keeps the subscription:
// it is made again on every new session until [Conn.Unsubscribe]. It fails
// with [BadRequest] when the server did not declare
// resources.subscribe. Errors are [*Error].
func (c *Conn) Subscribe(ctx context.Context, uri string) error {
	if !validURI(uri) {
		return newError(BadRequest, "a subscription needs a resource URI")
	}
	s, err := c.current()
	if err != nil {
		return err
	}
	if r := declared(s).Resources; r == nil || !r.Subscribe {
		return newError(BadRequest, "the server does not offer resource subscriptions")
	}
	c.mu.Lock()
	_, known := c.subs[uri]
	full := len(c.subs) >= wire.MaxSubscriptions
	c.mu.Unlock()
	if !known && full {
		return newError(BadRequest, fmt.Sprintf("at most %d resources of one server can be subscribed to", wire.MaxSubscriptions))
	}
	if _, err := do(ctx, s, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	}); err != nil {
		return err
	}
	c.editSubs(func(subs map[string]wire.Subscription) {
		sub := subs[uri]
		sub.URI, sub.Error = uri, ""
		subs[uri] = sub
	})
	return nil
}

// Unsubscribe forgets the subscription to uri and, when a session is live,
// tells the server. A server that fails to hear it may send updates still;
// they are ignored. It never fails.
func (c *Conn) Unsubscribe(ctx context.Context, uri string) {
	c.editSubs(func(subs map[string]wire.Subscription) { delete(subs, uri) })
	s, err := c.current()
	if err != nil || c.heldByAgents(uri) {
		return
	}
	if r := declared(s).Resources; r == nil || !r.Subscribe {
		return
	}
	if _, err := do(ctx, s, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}); err != nil {
		c.log.Warn("mcp unsubscribe failed", "error", err)
	}
}

// resourceUpdated marks a subscribed resource as updated now. The server
// may name a part of a subscribed resource; the subscription that contains
// it is marked.
func (c *Conn) resourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if req == nil || req.Params == nil {
		return
	}
	uri := req.Params.URI
	c.updated.each(uri)
	now := time.Now().UTC().Format(updatedLayout)
	c.editSubs(func(subs map[string]wire.Subscription) {
		for k, sub := range subs {
			if k == uri || strings.HasPrefix(uri, strings.TrimSuffix(k, "/")+"/") {
				sub.Updated = now
				subs[k] = sub
			}
		}
	})
}

// resubscribe makes every kept subscription (the person's, and those
// agents hold) again on the new session s; a failure is recorded in the
// person's subscription, not the session's.
func (c *Conn) resubscribe(s *session) {
	c.mu.Lock()
	uris := make([]string, 0, len(c.subs)+len(c.agentSubs))
	for uri := range c.subs {
		uris = append(uris, uri)
	}
	for uri := range c.agentSubs {
		if _, person := c.subs[uri]; !person {
			uris = append(uris, uri)
		}
	}
	c.mu.Unlock()
	if len(uris) == 0 {
		return
	}
	errs := map[string]string{}
	if r := declared(s).Resources; r == nil || !r.Subscribe {
		for _, uri := range uris {
			errs[uri] = "the server no longer offers resource subscriptions"
		}
	} else {
		for _, uri := range uris {
			ctx, cancel := context.WithTimeout(s.ctx, subscribeTimeout)
			_, err := do(ctx, s, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
			})
			cancel()
			if err != nil {
				errs[uri] = "could not subscribe again: " + opMessage(err)
			}
		}
	}
	c.editSubs(func(subs map[string]wire.Subscription) {
		for _, uri := range uris {
			if sub, ok := subs[uri]; ok { // not unsubscribed meanwhile
				sub.Error = errs[uri]
				subs[uri] = sub
			}
		}
	})
	c.log.Info("mcp subscriptions made again", "subscriptions", len(uris), "failed", len(errs))
}

// editSubs changes the kept subscriptions under c.mu and asks the run
// goroutine to show them.
func (c *Conn) editSubs(edit func(map[string]wire.Subscription)) {
	c.mu.Lock()
	edit(c.subs)
	c.mu.Unlock()
	select {
	case c.subsChanged <- struct{}{}:
	default:
	}
}

// showSubs puts the kept subscriptions in the state and emits it; only the
// run goroutine calls it.
func (c *Conn) showSubs() {
	c.state.Subscriptions = c.subscriptionList()
	c.publish()
}

// subscriptionList returns the kept subscriptions, ordered by URI.
func (c *Conn) subscriptionList() []wire.Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.subs) == 0 {
		return nil
	}
	out := make([]wire.Subscription, 0, len(c.subs))
	for _, sub := range c.subs {
		out = append(out, sub)
	}
	slices.SortFunc(out, func(a, b wire.Subscription) int { return strings.Compare(a.URI, b.URI) })
	return out
}

// validURI reports whether uri can be the resource URI of a subscription:
// not empty, and shown as it is, on one line, within maxURIRunes.
func validURI(uri string) bool {
	return uri != "" && wire.Sanitize(uri, maxURIRunes) == uri
}

// initialSubs is the set of subscriptions a connection starts with.
func initialSubs(uris []string) map[string]wire.Subscription {
	subs := make(map[string]wire.Subscription, len(uris))
	for _, uri := range uris {
		subs[uri] = wire.Subscription{URI: uri}
	}
	return subs
}

// opMessage is the message of an error that [do] returned.
func opMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
