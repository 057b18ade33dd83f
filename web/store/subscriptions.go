package store

import (
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Subscribe subscribes to a resource of server. The subscription shows in
// the server's state once the relay has made it; done gets the error, if
// any, outside the client's lock.
func (c *Client) Subscribe(server, uri string, done func(*wire.Error)) {
	c.Do(wire.OpSubscribe, wire.SubscribeArgs{Server: server, URI: uri}, func(r Reply) { done(r.Err) })
}

// Unsubscribe ends a subscription; see [Client.Subscribe].
func (c *Client) Unsubscribe(server, uri string, done func(*wire.Error)) {
	c.Do(wire.OpUnsubscribe, wire.SubscribeArgs{Server: server, URI: uri}, func(r Reply) { done(r.Err) })
}

// SubscriptionOf returns the subscription of srv to uri, if there is one.
func SubscriptionOf(srv *wire.Server, uri string) (wire.Subscription, bool) {
	if srv == nil {
		return wire.Subscription{}, false
	}
	i := slices.IndexFunc(srv.Subscriptions, func(s wire.Subscription) bool { return s.URI == uri })
	if i < 0 {
		return wire.Subscription{}, false
	}
	return srv.Subscriptions[i], true
}

// rereadLocked returns the reads to make again after a delta turned the
// mirror from before into c.snap: the subscribed resources the server
// marked updated and this dashboard has read. A new read replaces the
// finished reads of the same resource, so that a resource that changes
// often does not push every other call out of the list.
func (c *Client) rereadLocked(before wire.Snapshot) replies {
	var out replies
	for i := range c.snap.Servers {
		srv := &c.snap.Servers[i]
		old := before.ServerByID(srv.ID)
		for _, sub := range srv.Subscriptions {
			prev, _ := SubscriptionOf(old, sub.URI)
			if sub.Updated == "" || sub.Updated == prev.Updated || !c.hasReadLocked(srv.ID, sub.URI) {
				continue
			}
			server, uri := srv.ID, sub.URI
			c.calls = slices.DeleteFunc(slices.Clone(c.calls), func(call Call) bool {
				return call.Kind == wire.CallKindResource && call.Server == server && call.Name == uri && call.Status != CallPending
			})
			out = append(out, func() { c.ReadResource(server, uri) })
		}
	}
	return out
}

// hasReadLocked reports whether this dashboard read uri of server.
func (c *Client) hasReadLocked(server, uri string) bool {
	return slices.ContainsFunc(c.calls, func(call Call) bool {
		return call.Kind == wire.CallKindResource && call.Server == server && call.Name == uri
	})
}
