package hub

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/replica"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Timeouts of the socket protocol.
const (
	handshakeTimeout = 10 * time.Second // to receive auth and hello after the upgrade
	writeTimeout     = 10 * time.Second // to write one frame
	// pingInterval is how often an idle-looking socket is pinged; a dashboard
	// that does not answer within pingTimeout is gone (a half-open socket)
	// and is dropped instead of being kept until its token expires.
	pingInterval = 30 * time.Second
	pingTimeout  = 10 * time.Second
)

// Hub serves /ws.
type Hub struct {
	verifier *authn.Verifier
	origins  *authn.OriginPolicy
	sessions *session.Manager
	logger   *slog.Logger
	now      func() time.Time
	ping     time.Duration // pingInterval, shorter in tests

	// Replicas, when set, sends a dashboard whose user another replica
	// owns to that replica (relay/replica).
	Replicas *replica.Router

	mu     sync.Mutex
	conns  map[*websocket.Conn]struct{}
	closed bool
}

// New returns a hub that authenticates with verifier, checks origins and
// attaches dashboards to sessions.
func New(verifier *authn.Verifier, origins *authn.OriginPolicy, sessions *session.Manager, logger *slog.Logger) *Hub {
	if logger == nil {
		logger = slog.Default()
	}
	return &Hub{verifier: verifier, origins: origins, sessions: sessions, logger: logger, now: time.Now, ping: pingInterval,
		conns: map[*websocket.Conn]struct{}{}}
}

// ServeHTTP upgrades an authenticated, same-origin or allowed-origin request.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A socket another replica forwarded comes from that replica, which
	// checked the dashboard's origin and credentials (relay/replica).
	forwarded, isForwarded := replica.Forwarded(r.Context())
	if !isForwarded && !h.origins.Allowed(r) {
		h.logger.Warn("websocket refused: origin not allowed", "origin", r.Header.Get("Origin"))
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	claims, present, err := h.verifier.FromRequest(r)
	if isForwarded && !present {
		claims, present = forwarded, true
	}
	if present && err != nil {
		h.logger.Info("websocket refused: bad credentials", "err", err)
		http.Error(w, "unauthorized: "+err.Error(), http.StatusUnauthorized)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // Origin checked above
	if err != nil {
		return // Accept has answered the request
	}
	c.SetReadLimit(wire.MaxInboundFrame)
	if !h.track(c) {
		c.Close(websocket.StatusCode(wire.CloseShuttingDown), "relay shutting down")
		return
	}
	defer h.untrack(c)
	h.serve(r.Context(), c, claims, present)
}

// Close disconnects every dashboard; they reconnect by themselves.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	conns := h.conns
	h.conns = map[*websocket.Conn]struct{}{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for c := range conns { // in parallel: one stuck peer must not hold up the rest
		wg.Go(func() { c.Close(websocket.StatusCode(wire.CloseShuttingDown), "relay restarting") })
	}
	wg.Wait()
}

// open counts the sockets attached now.
func (h *Hub) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

func (h *Hub) track(c *websocket.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.conns[c] = struct{}{}
	return true
}

func (h *Hub) untrack(c *websocket.Conn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

// serve runs one socket after the upgrade.
func (h *Hub) serve(ctx context.Context, c *websocket.Conn, claims authn.Claims, authenticated bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	claims, hello, ok := h.handshake(ctx, c, claims, authenticated)
	if !ok {
		return
	}
	ttl := claims.Expires.Sub(h.now())
	if ttl <= 0 {
		c.Close(websocket.StatusCode(wire.CloseUnauthorized), "token expired")
		return
	}
	if h.Replicas != nil {
		route, here := h.Replicas.Attach(ctx, c, claims, hello)
		if !here {
			return // served by the owner, or closed
		}
		defer route.Done()
	}
	expiry := time.NewTimer(ttl)
	defer expiry.Stop()

	sub := h.sessions.Session(claims.User).Subscribe(hello)
	defer sub.Close()
	defer metrics.Dashboard()()
	h.logger.Debug("dashboard attached", "user", claims.User)

	readErr := make(chan error, 1)
	reauths := make(chan reauth)
	go func() { readErr <- h.readOps(ctx, c, sub, claims.User, reauths) }()
	pings := time.NewTicker(h.ping)
	defer pings.Stop()
	lost := make(chan struct{}, 1)
	for {
		select {
		case <-pings.C:
			go h.pingPeer(ctx, c, lost)
		case <-lost:
			c.CloseNow()
			return
		case b := <-sub.Outbox():
			wctx, wcancel := context.WithTimeout(ctx, writeTimeout)
			err := c.Write(wctx, websocket.MessageText, b)
			wcancel()
			metrics.Sent(len(b))
			if err != nil {
				c.CloseNow()
				return
			}
		case <-sub.Done():
			code, reason := sub.CloseStatus()
			c.Close(websocket.StatusCode(code), reason)
			return
		case <-expiry.C:
			c.Close(websocket.StatusCode(wire.CloseUnauthorized), "token expired")
			return
		case a := <-reauths:
			if a.refused != "" {
				c.Close(websocket.StatusCode(wire.CloseUnauthorized), a.refused)
				return
			}
			expiry.Reset(a.expires.Sub(h.now()))
		case err := <-readErr:
			if websocket.CloseStatus(err) == -1 && !errors.Is(err, context.Canceled) {
				h.logger.Debug("dashboard read failed", "user", claims.User, "err", err)
			}
			c.CloseNow()
			return
		}
	}
}

// handshake reads, within handshakeTimeout, the auth frame (unless the
// upgrade request was authenticated already) and the hello frame that start
// a socket. It returns the claims the socket runs as and the hello; when
// either frame is missing or refused it closes the socket and returns false.
func (h *Hub) handshake(ctx context.Context, c *websocket.Conn, claims authn.Claims, authenticated bool) (authn.Claims, wire.Hello, bool) {
	hctx, hcancel := context.WithTimeout(ctx, handshakeTimeout)
	defer hcancel()
	if !authenticated {
		var err error
		if claims, err = h.readAuth(hctx, c); err != nil {
			h.logger.Info("websocket refused", "err", err)
			c.Close(websocket.StatusCode(wire.CloseUnauthorized), closeReason(err.Error()))
			return authn.Claims{}, wire.Hello{}, false
		}
	}
	hello, err := readHello(hctx, c)
	if err != nil {
		c.Close(websocket.StatusCode(wire.CloseProtocolError), closeReason(err.Error()))
		return authn.Claims{}, wire.Hello{}, false
	}
	return claims, hello, true
}

// pingPeer pings the dashboard once and, when no pong comes back within
// min(pingTimeout, h.ping), tells the serve loop on lost that the socket is
// gone (without waiting, if the loop has been told already). readOps reads
// the pong; Ping waits for it.
func (h *Hub) pingPeer(ctx context.Context, c *websocket.Conn, lost chan<- struct{}) {
	pctx, pcancel := context.WithTimeout(ctx, min(pingTimeout, h.ping))
	defer pcancel()
	if c.Ping(pctx) != nil {
		select {
		case lost <- struct{}{}:
		default:
		}
	}
}

// readOps reads frames until the socket fails, handing ops to the subscriber,
// fresh tokens to the serve loop (see readReauth) and answering anything
// else with an error frame.
func (h *Hub) readOps(ctx context.Context, c *websocket.Conn, sub *session.Subscriber, user string, reauths chan<- reauth) error {
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			sub.Reply(wire.ErrorFrame("", wire.NewError(wire.CodeBadFrame, "frames must be JSON text")))
			continue
		}
		f, err := wire.Decode(b)
		if err != nil {
			sub.Reply(wire.ErrorFrame("", wire.NewError(wire.CodeBadFrame, err.Error())))
			continue
		}
		if f.Type == wire.TypeAuth {
			if a, ok := h.readReauth(f, user, sub); ok {
				select {
				case reauths <- a:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			continue
		}
		if f.Type != wire.TypeOp {
			sub.Reply(wire.ErrorFrame(f.ID, wire.NewError(wire.CodeBadFrame, "expected an op frame, got "+string(f.Type))))
			continue
		}
		sub.HandleOp(f)
	}
}

// maxCloseReason is the longest close reason a WebSocket close frame carries, in bytes.
const maxCloseReason = 123

// closeReason fits a message into a close frame's reason.
func closeReason(s string) string {
	s = wire.Sanitize(s, maxCloseReason)
	for len(s) > maxCloseReason {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
