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
	mux.Handle(wire.OpComplete, onOwner(m, func(ctx context.Context, o *Server, a wire.CompleteArgs) (any, error) { return o.complete(ctx, a) }))
	mux.Handle(wire.OpSubscribe, onOwner(m, func(ctx context.Context, o *Server, a wire.SubscribeArgs) (any, error) {
		return struct{}{}, o.Subscribe(ctx, a.URI)
	}))
	mux.Handle(wire.OpUnsubscribe, onOwner(m, func(ctx context.Context, o *Server, a wire.SubscribeArgs) (any, error) {
		return struct{}{}, o.Unsubscribe(ctx, a.URI)
	}))
}

// complete asks the server to complete what a dashboard typed. A server
// that did not declare completions is not asked.
func (o *Server) complete(ctx context.Context, a wire.CompleteArgs) (any, error) {
	c, err := o.Connection()
	if err != nil {
		return nil, err
	}
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

// Subscribe subscribes the person to the server's resource at uri and
// remembers it, once the server has accepted, so that it is made again
// after a reconnect and a relay restart.
func (o *Server) Subscribe(ctx context.Context, uri string) error {
	s := o.s
	c, err := o.Connection()
	if err != nil {
		return err
	}
	if err := c.Subscribe(ctx, uri); err != nil {
		return err
	}
	if err := s.m.store.AddSubscription(ctx, s.user, o.reg.ID, uri); err != nil {
		s.m.logger.Error("store subscription", "user", s.user, "server", o.reg.ID, "err", err)
		c.Unsubscribe(context.WithoutCancel(ctx), uri)
		return storeFailed(err, "could not save the subscription")
	}
	return nil
}

// Unsubscribe forgets the person's subscription to the server's resource
// at uri and tells the server if it is connected.
func (o *Server) Unsubscribe(ctx context.Context, uri string) error {
	s := o.s
	if err := s.m.store.RemoveSubscription(ctx, s.user, o.reg.ID, uri); err != nil {
		s.m.logger.Error("forget subscription", "user", s.user, "server", o.reg.ID, "err", err)
		return storeFailed(err, "could not forget the subscription")
	}
	if c, err := o.Connection(); err == nil {
		c.Unsubscribe(ctx, uri)
	}
	return nil
}

// subscriptions returns the resource URIs reg's server is subscribed to,
// for its connection to subscribe to again, to load a [Dial].
func (m *Manager) subscriptions(reg store.Server) []string {
	ctx, cancel := context.WithTimeout(context.Background(), settingTimeout)
	defer cancel()
	uris, err := m.store.Subscriptions(ctx, reg.User, reg.ID)
	if err != nil {
		m.logger.Error("read subscriptions", "user", reg.User, "server", reg.ID, "err", err)
	}
	return uris
}
