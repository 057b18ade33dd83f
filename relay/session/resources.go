package session

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// ResourceConnection is what a [Connection] offers for completions and
// resource subscriptions.
type ResourceConnection interface {
	// Capabilities are the server's; nil without a live session.
	Capabilities() *mcp.ServerCapabilities
	Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
	// Subscribe subscribes to a resource and keeps the subscription for
	// later sessions; Unsubscribe forgets it and never fails.
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string)
}

// SubscriptionStore persists resource subscriptions; *store.Store satisfies it.
type SubscriptionStore interface {
	AddSubscription(ctx context.Context, user, server, uri string) error
	RemoveSubscription(ctx context.Context, user, server, uri string) error
	Subscriptions(ctx context.Context, user, server string) ([]string, error)
}

// handleResourceOps registers the ops on completions and resource
// subscriptions.
func (m *Manager) handleResourceOps(mux *ops.Mux) {
	mux.Handle(wire.OpComplete, onServer(m, func(ctx context.Context, c Connection, a wire.CompleteArgs) (any, error) { return complete(ctx, c, a) }))
	mux.Handle(wire.OpSubscribe, on(m, func(ctx context.Context, s *Session, a wire.SubscribeArgs) (any, error) {
		return struct{}{}, s.SubscribeResource(ctx, a.Server, a.URI)
	}))
	mux.Handle(wire.OpUnsubscribe, on(m, func(ctx context.Context, s *Session, a wire.SubscribeArgs) (any, error) {
		return struct{}{}, s.UnsubscribeResource(ctx, a.Server, a.URI)
	}))
}

// complete asks c's server to complete what a dashboard typed. A server
// that did not declare completions is not asked.
func complete(ctx context.Context, c Connection, a wire.CompleteArgs) (any, error) {
	p, err := mcpwire.CompleteParams(a)
	if err != nil {
		return nil, err
	}
	if caps := c.Capabilities(); caps != nil && caps.Completions == nil {
		return nil, wire.NewError(wire.CodeBadRequest, "the server does not offer completions")
	}
	res, err := c.Complete(ctx, p)
	if err != nil {
		return nil, err
	}
	return mcpwire.CompleteResult(res.Completion), nil
}

// SubscribeResource subscribes server id to the resource at uri and remembers it,
// once the server has accepted, so that it is made again after a reconnect
// and a relay restart.
func (s *Session) SubscribeResource(ctx context.Context, id, uri string) error {
	c, err := s.connection(id)
	if err != nil {
		return err
	}
	if err := c.Subscribe(ctx, uri); err != nil {
		return err
	}
	if err := s.m.store.AddSubscription(ctx, s.user, id, uri); err != nil {
		s.m.logger.Error("store subscription", "user", s.user, "server", id, "err", err)
		c.Unsubscribe(context.WithoutCancel(ctx), uri)
		return wire.NewError(wire.CodeInternal, "could not save the subscription")
	}
	return nil
}

// UnsubscribeResource forgets the subscription of server id to uri and tells the
// server if it is connected.
func (s *Session) UnsubscribeResource(ctx context.Context, id, uri string) error {
	s.mu.Lock()
	e, ok := s.servers[id]
	var c Connection
	if ok {
		c = e.conn
	}
	s.mu.Unlock()
	if !ok {
		return wire.NewError(wire.CodeNotFound, "no such server")
	}
	if err := s.m.store.RemoveSubscription(ctx, s.user, id, uri); err != nil {
		s.m.logger.Error("forget subscription", "user", s.user, "server", id, "err", err)
		return wire.NewError(wire.CodeInternal, "could not forget the subscription")
	}
	if c != nil {
		c.Unsubscribe(ctx, uri)
	}
	return nil
}

// Subscriptions returns the resource URIs reg's server is subscribed to,
// for its connection to subscribe to again. The session calls it to load a
// [Dial].
func (m *Manager) Subscriptions(reg store.Server) []string {
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	uris, err := m.store.Subscriptions(ctx, reg.User, reg.ID)
	if err != nil {
		m.logger.Error("read subscriptions", "user", reg.User, "server", reg.ID, "err", err)
	}
	return uris
}
