package conn

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// session is one live go-sdk client session with what operations need of it.
type session struct {
	cs *mcp.ClientSession
	// ctx ends with the session; operations run under it so that ending a
	// session never waits for a slow call.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// tools and prompts hold the names last listed, guarded by Conn.mu; nil
	// until listed.
	tools, prompts map[string]bool
	// streamEnded is closed when the session's subscriptions/listen stream
	// ends.
	streamEnded chan struct{}
	// broken says, buffered 1, that a request or response stream of the
	// session failed: serve probes the server at once (see suspect).
	broken chan struct{}
	// callTimeout and maxResult are Config.CallTimeout and MaxResultBytes.
	callTimeout time.Duration
	maxResult   int
	// scrub masks the connection's secrets in what an error says: a server
	// may quote the key it refused.
	scrub func(string) string
}

// suspect asks serve to probe the server now: a request or stream of the
// session broke, which a server that died mid-call causes.
func (s *session) suspect() {
	select {
	case s.broken <- struct{}{}:
	default:
	}
}

// attempt runs one session from connecting to its end. wasReady reports
// whether it reached ready; err is why it ended. The steps are functions
// of their own so that the goroutine serving an idle session holds a
// shallow stack.
func (c *Conn) attempt() (wasReady bool, err error) {
	s, err := c.begin()
	if err != nil {
		return false, err
	}
	defer c.end(s)
	authCh, err := c.prepare(s)
	if err != nil {
		return false, err
	}
	return true, c.serve(s, authCh)
}

// begin connects and makes the new session live.
func (c *Conn) begin() (*session, error) {
	c.setState(wire.StateConnecting)
	streamEnded := make(chan struct{})
	var once sync.Once
	broken := make(chan struct{}, 1)
	cs, err := c.connect(func() { once.Do(func() { close(streamEnded) }) }, func() {
		select {
		case broken <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, failure(stepConnect, err)
	}
	return c.open(cs, streamEnded, broken), nil
}

// prepare takes s from connected to ready: it lists what the server offers,
// asks its log level and subscribes again. authCh signals the next change
// of authorization.
func (c *Conn) prepare(s *session) (authCh <-chan struct{}, err error) {
	c.state.Init, c.state.Tasks, c.state.Client = s.cs.InitializeResult(), c.ra.Tasks.Capability(), c.capabilities()
	c.setState(wire.StateConnected)

	c.setState(wire.StateDiscovering)
	if err := c.discover(s, allKinds); err != nil {
		return nil, failure(stepDiscover, err)
	}
	c.askLogLevel(s)
	c.resubscribe(s)
	c.state.Subscriptions = c.subscriptionList()
	// Take the retry and authorization signals before showing ready, so that
	// one raised as soon as the server shows ready is not lost.
	drain(c.retry)
	authCh = c.authChanges()
	c.setState(wire.StateReady)
	c.log.Info("mcp server ready", "protocol", c.state.Init.ProtocolVersion, "tools", len(c.state.Lists.Tools))
	return authCh, nil
}

// connect opens a go-sdk session. streamEnded is called when its
// subscriptions/listen stream ends, broken when one of its requests or
// response streams fails. With transport auto it tries the transport found
// last (Streamable HTTP at first) and, when the endpoint's first answer is
// 400, 404 or 405, the other one.
func (c *Conn) connect(streamEnded, broken func()) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(c.ctx, connectTimeout)
	defer cancel()
	if c.cfg.Transport == wire.TransportStdio {
		if c.cfg.Command == nil {
			return nil, errNoCommand
		}
		return c.client.Connect(ctx, c.stdioTransport(), nil)
	}
	if c.http == nil {
		return nil, errNoGuardedClient
	}
	kinds := []wire.Transport{c.cfg.Transport}
	if c.cfg.Transport == wire.TransportAuto {
		kinds = []wire.Transport{wire.TransportStreamable, wire.TransportSSE}
		if c.state.TransportInUse == wire.TransportSSE {
			kinds = []wire.Transport{wire.TransportSSE, wire.TransportStreamable}
		}
	}
	for i := 0; ; i++ {
		kind, first := kinds[i], &firstAnswer{endpoint: c.cfg.URL}
		cs, err := c.client.Connect(ctx, c.transport(kind, streamEnded, broken, first), nil)
		if err == nil {
			if c.cfg.Transport == wire.TransportAuto {
				c.state.TransportInUse = kind
			}
			return cs, nil
		}
		if !wrongTransport(first.Status()) || i == len(kinds)-1 {
			return nil, permanent(err, first.Status(), c.cfg.Transport)
		}
		c.log.Info("mcp endpoint speaks another transport; trying the next", "tried", kind, "status", first.Status())
	}
}

// open makes cs the live session. List changes noted before belong to an
// older session: the first discovery lists everything anyway.
func (c *Conn) open(cs *mcp.ClientSession, streamEnded, broken chan struct{}) *session {
	ctx, cancel := context.WithCancelCause(c.ctx)
	s := &session{cs: cs, ctx: ctx, cancel: cancel, streamEnded: streamEnded, broken: broken, callTimeout: c.cfg.CallTimeout, maxResult: c.cfg.MaxResultBytes,
		scrub: c.scrub}
	c.mu.Lock()
	c.live = s
	c.pending = 0
	c.mu.Unlock()
	drain(c.changed)
	return s
}

// end closes s: new operations fail as not ready, running ones are cancelled.
func (c *Conn) end(s *session) {
	c.mu.Lock()
	c.live = nil
	c.mu.Unlock()
	s.cancel(errSessionEnded)
	if err := s.cs.Close(); err != nil {
		c.log.Debug("mcp session close", "error", c.scrub(err.Error()))
	}
}

// serve watches a ready session and keeps its lists current, until the
// session fails, Retry is called or c closes.
func (c *Conn) serve(s *session, authCh <-chan struct{}) error {
	readyAt := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- s.cs.Wait() }()
	health := time.NewTicker(c.cfg.HealthInterval)
	defer health.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case <-c.retry:
			return errRetryNow
		case err := <-closed:
			if err == nil {
				err = errClosedByServer
			}
			return failure(stepLost, err)
		case <-s.streamEnded:
			if err := aside(func() error { return c.probe(s, c.probeTimeout()) }); err != nil {
				return failure(stepLost, err)
			}
			if time.Since(readyAt) < stableSession {
				return failure(stepLost, errStreamClosed)
			}
			return errRecycle
		case <-health.C:
			if err := aside(func() error { return c.probe(s, c.probeTimeout()) }); err != nil {
				return failure(stepHealth, err)
			}
		case <-s.broken:
			if err := aside(func() error { return c.probe(s, suspectProbeTimeout) }); err != nil {
				return failure(stepLost, err)
			}
		case <-c.changed:
			if err := aside(func() error { return c.rediscover(s) }); err != nil {
				return err
			}
		case <-c.subsChanged:
			c.showSubs()
		case <-authCh:
			authCh = c.authChanges()
			if err := c.authChanged(); err != nil {
				return err
			}
		}
	}
}

// aside runs f on a goroutine of its own and returns its error. A probe or
// a listing goes deep into the go-sdk and net/http; on the goroutine serving
// a session, idle most of its life, that stack would stay until a garbage
// collection shrinks it.
func aside(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return <-done
}

// rediscover re-lists what changed, after a short wait that gathers a burst
// of notifications into one listing. The state stays ready.
func (c *Conn) rediscover(s *session) error {
	t := time.NewTimer(coalesceWindow)
	defer t.Stop()
	select {
	case <-c.ctx.Done():
		return c.ctx.Err()
	case <-t.C:
	}
	drain(c.changed)
	c.mu.Lock()
	k := c.pending
	c.pending = 0
	c.mu.Unlock()
	c.log.Debug("mcp lists changed; listing again", "kinds", k.String())
	if err := c.discover(s, k); err != nil {
		return failure(stepDiscover, err)
	}
	c.publish()
	return nil
}

// markChanged notes a list_changed notification of kind k.
func (c *Conn) markChanged(k kinds) {
	c.log.Debug("mcp list changed", "kind", k.String())
	c.mu.Lock()
	c.pending |= k
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// current returns the live session, or a not-ready error that names the
// server's state.
func (c *Conn) current() (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live == nil {
		return nil, notReady(c.shown, c.shownError)
	}
	return c.live, nil
}

// declared returns the capabilities the server of s declared.
func declared(s *session) *mcp.ServerCapabilities {
	if init := s.cs.InitializeResult(); init != nil && init.Capabilities != nil {
		return init.Capabilities
	}
	return &mcp.ServerCapabilities{}
}

// notReady says that a server in state st, which failed with failure, has
// no live session.
func notReady(st wire.ServerState, failure string) *Error {
	const prefix = "the server is not connected: "
	var why string
	switch st {
	case wire.StateFailed:
		why = "its last attempt failed (" + failure + ")"
	case wire.StateAuthenticating:
		why = "it waits for a person to authorize the relay"
	case wire.StateReady:
		why = "its session ended and the relay reconnects"
	default:
		why = "the relay is still connecting to it"
	}
	return newError(NotReady, prefix+why)
}
