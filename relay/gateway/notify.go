package gateway

import (
	"context"
	"maps"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Notifications of the servers passed on to agents: their log messages
// (each agent session gets those at or above the level it set; the
// connection asks its server for the lowest level the person or any view
// wants) and resources/updated for
// the resources an agent subscribed to. A log message sent while calls of
// the view run on its server goes on the streams of those calls, as the
// server sent it on the stream of its call; otherwise on each session's
// own stream.

// heard is the log listener of one server of a view.
type heard struct {
	up   upstream
	stop func()
}

// activeCall is an agent's call in flight, for log messages.
type activeCall struct {
	ctx context.Context
	ss  *mcp.ServerSession
}

// subscription is one resource the agents of the view subscribed to, held
// at the server while any of their sessions holds it.
type subscription struct {
	user, server, uri string // the server's own URI
	up                upstream
	stop              func()                      // stops listening for its updates
	sessions          map[*mcp.ServerSession]bool // the agents' sessions that hold it; under the view's mu
}

// notifyTimeout bounds passing a level or a subscription on to a server
// when the agent's request does not.
const notifyTimeout = 10 * time.Second

// subscribeWaits, when a test sets it, runs whenever a subscribe has to
// wait for another subscribe of its view to finish.
var subscribeWaits atomic.Pointer[func()]

// hear makes the view listen to the log messages of server id's connection
// up, or to none when up is nil. The listener it replaces is stopped after
// v.mu is let go: stopping tells the server, and the session calls
// v.changed (which takes v.mu) under its own lock.
func (v *view) hear(id string, up upstream) {
	v.mu.Lock()
	h, ok := v.logs[id]
	if ok && h.up == up {
		v.mu.Unlock()
		return
	}
	delete(v.logs, id)
	if up != nil {
		stopLog := up.OnLog(func(p *mcp.LoggingMessageParams) { v.logged(id, p) })
		v.logs[id] = heard{up: up, stop: func() {
			stopLog()
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			defer cancel()
			up.ReleaseAgentLogLevel(ctx, v)
		}}
	}
	v.mu.Unlock()
	if ok {
		h.stop()
	}
}

// logged passes a log message of server id on, without the _meta keys the
// server's era put in it (a 2026-07-28 agent's session puts its own).
func (v *view) logged(id string, p *mcp.LoggingMessageParams) {
	if len(p.Meta) > 0 {
		out := *p
		out.Meta = maps.Clone(p.Meta)
		for _, k := range newMetaKeys {
			delete(out.Meta, k)
		}
		p = &out
	}
	v.mu.Lock()
	calls := make([]*activeCall, 0, len(v.active[id]))
	for c := range v.active[id] {
		calls = append(calls, c)
	}
	v.mu.Unlock()
	if len(calls) > 0 {
		for _, c := range calls {
			c.ss.Log(c.ctx, p)
		}
		return
	}
	for ss := range v.srv.Sessions() {
		ss.Log(v.ctx, p)
	}
}

// begin notes a call in flight on server id until the returned func.
func (v *view) begin(id string, ctx context.Context, ss *mcp.ServerSession) func() {
	c := &activeCall{ctx: ctx, ss: ss}
	v.mu.Lock()
	if v.active[id] == nil {
		v.active[id] = map[*activeCall]bool{}
	}
	v.active[id][c] = true
	v.mu.Unlock()
	return func() {
		v.mu.Lock()
		delete(v.active[id], c)
		v.mu.Unlock()
	}
}

// setLevel passes the level an agent set on to the servers of the view.
func (v *view) setLevel(ctx context.Context, level mcp.LoggingLevel) {
	v.mu.Lock()
	ups := make(map[string]upstream, len(v.logs))
	for id, h := range v.logs {
		ups[id] = h.up
	}
	v.mu.Unlock()
	for id, up := range ups {
		if err := up.SetAgentLogLevel(ctx, v, wire.LogLevel(level)); err != nil {
			v.g.log.Debug("agent gateway: set logging level", "server", id, "error", err)
		}
	}
}

// resolve returns the server and own URI of a URI the view shows.
func (v *view) resolve(uri string) (server, own string, ok bool) {
	if v.only != "" {
		return v.only, uri, true
	}
	return upstreamURI(uri)
}

// subscribe is the go-sdk's SubscribeHandler of the view.
func (v *view) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	id, own, ok := v.resolve(uri)
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	grant := *v.grant.Load()
	up, err := v.allowed(grant, id)
	if err != nil {
		return err
	}
	// One subscribe at a time, so that two of one URI hold it once.
	if !v.subscribing.TryLock() {
		if waits := subscribeWaits.Load(); waits != nil {
			(*waits)()
		}
		v.subscribing.Lock()
	}
	defer v.subscribing.Unlock()
	v.mu.Lock()
	held, dup := v.subs[uri]
	if dup {
		held.sessions[req.Session] = true
		v.watchHolderLocked(req.Session)
	}
	v.mu.Unlock()
	if dup {
		return nil
	}
	if err := up.HoldSubscription(ctx, own); err != nil {
		return requestError(ctx, err)
	}
	stop := up.OnResourceUpdated(func(u string) {
		if u == own {
			v.srv.ResourceUpdated(v.ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	})
	sub := subscription{user: grant.User, server: id, uri: own, up: up, stop: stop, sessions: map[*mcp.ServerSession]bool{req.Session: true}}
	v.mu.Lock()
	if v.ctx.Err() != nil { // the view closed meanwhile, and released the others
		v.mu.Unlock()
		v.release(sub)
		return errClosed
	}
	v.subs[uri] = sub
	v.watchHolderLocked(req.Session)
	v.mu.Unlock()
	return nil
}

// watchHolderLocked lets go of the subscriptions of session ss when it ends
// (an agent that went away without unsubscribing), from its first one on.
func (v *view) watchHolderLocked(ss *mcp.ServerSession) {
	if ss == nil || v.subHolders[ss] {
		return
	}
	v.subHolders[ss] = true
	go func() {
		ss.Wait()
		v.mu.Lock()
		delete(v.subHolders, ss)
		var ended []subscription
		for uri, sub := range v.subs {
			if !sub.sessions[ss] {
				continue
			}
			delete(sub.sessions, ss)
			if len(sub.sessions) == 0 {
				delete(v.subs, uri)
				ended = append(ended, sub)
			}
		}
		v.mu.Unlock()
		for _, sub := range ended {
			v.release(sub)
		}
	}()
}

// unsubscribe is the go-sdk's UnsubscribeHandler of the view.
func (v *view) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	v.mu.Lock()
	sub, ok := v.subs[req.Params.URI]
	ok = ok && sub.sessions[req.Session]
	if ok {
		delete(sub.sessions, req.Session)
	}
	last := ok && len(sub.sessions) == 0
	if last {
		delete(v.subs, req.Params.URI)
	}
	v.mu.Unlock()
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "not subscribed"}
	}
	if !last { // another session of the key still holds it
		return nil
	}
	// The agent hears no more updates from now on; telling the server may
	// take a while, and the agent need not wait for it.
	sub.stop()
	go v.releaseUpstream(sub)
	return nil
}

// release ends one subscription of the view.
func (v *view) release(sub subscription) {
	sub.stop()
	v.releaseUpstream(sub)
}

// releaseUpstream gives back the connection's hold of sub, which tells the
// server after the last hold.
func (v *view) releaseUpstream(sub subscription) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if err := sub.up.ReleaseSubscription(ctx, sub.uri); err != nil {
		v.g.log.Debug("agent gateway: unsubscribe", "server", sub.server, "error", err)
	}
}
