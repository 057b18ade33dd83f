package replica

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxRetryBody is the largest request body kept to send again when the
// owner could not be reached (MCP requests are far smaller).
const maxRetryBody = 1 << 20

// Serve serves a request of user: here when this replica owns the user (or
// takes them now), else at the owner. When the owner cannot be reached (it
// died, and PostgreSQL has not yet ended its locks) the request is routed
// again, for up to claimWait. A request another replica forwarded is never
// forwarded again: when its user moved meanwhile it is answered 503, and
// the sender's client tries again.
func (r *Router) Serve(w http.ResponseWriter, req *http.Request, user string, here http.Handler) {
	body, again := keepBody(req)
	deadline := time.Now().Add(claimWait)
	for {
		rt, err := r.Route(req.Context(), user)
		if err != nil {
			r.cfg.Logger.Warn("replica: route", "user", user, "err", err)
			unavailable(w, "the relay cannot serve this user right now; try again")
			return
		}
		if rt.Local() {
			defer rt.Done()
			here.ServeHTTP(w, req)
			return
		}
		if _, forwarded := Forwarded(req.Context()); forwarded {
			unavailable(w, "this user moved to another replica; try again")
			return
		}
		if r.forward(w, req, rt.Owner, user, body) {
			return
		}
		if !again || time.Now().After(deadline) || !sleep(req.Context(), claimRetry) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "the relay serving this user did not answer (it may be restarting); try again", http.StatusBadGateway)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
}

// keepBody reads req's body to send it again; false when it is too large
// (then it is sent once, as it comes).
func keepBody(req *http.Request) ([]byte, bool) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, true
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, maxRetryBody+1))
	if err != nil || len(b) > maxRetryBody {
		req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), req.Body))
		return nil, false
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, true
}

func unavailable(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, msg, http.StatusServiceUnavailable)
}

// sleep waits d, or returns false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// forward sends req (whose body, when kept, is body) as it came to the
// owner, which authenticates it again, and streams the answer back; an
// answer the owner breaks off ends with Interrupted errors. It returns
// false, having written nothing, when the owner could not be reached.
func (r *Router) forward(w http.ResponseWriter, req *http.Request, owner, user string, body []byte) (reached bool) {
	proof, err := r.cfg.Proofs.mint(user, proofTTL)
	if err != nil {
		http.Error(w, "forward: "+err.Error(), http.StatusInternalServerError)
		return true
	}
	reached = true
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: owner})
			pr.Out.Host = pr.In.Host // the owner checks the host the client asked for
			pr.SetXForwarded()
			pr.Out.Header.Set(Header, proof)
		},
		FlushInterval: -1, // event streams pass at once
		ModifyResponse: func(resp *http.Response) error {
			endInterrupted(resp, requestIDs(body))
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			var op *net.OpError
			switch {
			case errors.As(err, &op) && op.Op == "dial":
				reached = false
			case errors.Is(err, context.Canceled):
			default:
				r.cfg.Logger.Warn("replica: forward", "owner", owner, "user", user, "err", err)
				if ids := requestIDs(body); len(ids) > 0 {
					writeInterrupted(w, ids) // an MCP client reads a JSON-RPC error
					return
				}
				w.Header().Set("Retry-After", "1")
				http.Error(w, "the relay serving this user failed to answer (it may be restarting); try again", http.StatusBadGateway)
			}
		},
	}
	proxy.ServeHTTP(w, req)
	return reached
}

// Attach serves an authenticated dashboard's socket: it returns the route
// and true when this replica owns the user (the socket is served here, and
// Done ends the route when it ends), else it carries the socket to the
// owner (routing again, for up to claimWait, while the owner cannot be
// reached) and returns false once the socket ended.
func (r *Router) Attach(ctx context.Context, c *websocket.Conn, claims authn.Claims, hello wire.Hello) (Route, bool) {
	deadline := time.Now().Add(claimWait)
	for {
		rt, err := r.Route(ctx, claims.User)
		switch {
		case err != nil:
			r.cfg.Logger.Warn("replica: dashboard not routed", "user", claims.User, "err", err)
			c.Close(websocket.StatusCode(wire.CloseShuttingDown), "relay busy: try again")
			return rt, false
		case rt.Local():
			return rt, true
		}
		if _, forwarded := Forwarded(ctx); forwarded { // moved meanwhile: never forwarded twice
			c.Close(websocket.StatusCode(wire.CloseShuttingDown), "user moved: reconnect")
			return rt, false
		}
		if r.pipe(ctx, c, rt.Owner, claims, hello) {
			return rt, false
		}
		if time.Now().After(deadline) || !sleep(ctx, claimRetry) {
			c.Close(websocket.StatusCode(wire.CloseShuttingDown), "relay restarting")
			return rt, false
		}
	}
}

// pipeDialTimeout bounds opening a dashboard's socket at its owner.
const pipeDialTimeout = 5 * time.Second

// pipe carries an authenticated dashboard's socket to its user's owner: it
// opens a socket there on the dashboard's behalf, sends the dashboard's
// hello and then passes every frame both ways until either side ends. The
// owner keeps the socket's expiry (the proof's) and checks the tokens the
// dashboard sends later. When the owner goes away the dashboard is told the
// relay is restarting, and reconnects. It returns false, leaving the
// dashboard's socket open, when the owner could not be reached.
func (r *Router) pipe(ctx context.Context, dash *websocket.Conn, owner string, claims authn.Claims, hello wire.Hello) (reached bool) {
	restarting := func() {
		dash.Close(websocket.StatusCode(wire.CloseShuttingDown), "relay restarting")
	}
	ttl := time.Until(claims.Expires)
	if ttl <= 0 {
		dash.Close(websocket.StatusCode(wire.CloseUnauthorized), "token expired")
		return true
	}
	proof, err := r.cfg.Proofs.mint(claims.User, ttl)
	if err != nil {
		r.cfg.Logger.Error("replica: pipe", "err", err)
		restarting()
		return true
	}
	dctx, cancel := context.WithTimeout(ctx, pipeDialTimeout)
	up, _, err := websocket.Dial(dctx, "ws://"+owner+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{Header: {proof}}})
	cancel()
	if err != nil {
		r.cfg.Logger.Info("replica: owner not reached", "owner", owner, "user", claims.User, "err", err)
		return false
	}
	up.SetReadLimit(-1) // the owner is a replica: its frames are the relay's own
	dash.SetReadLimit(wire.MaxInboundFrame)
	f, err := wire.NewFrame(wire.TypeHello, hello)
	if err == nil {
		var b []byte
		if b, err = wire.Encode(f); err == nil {
			err = up.Write(ctx, websocket.MessageText, b)
		}
	}
	if err != nil {
		up.CloseNow()
		restarting()
		return true
	}
	// Each side's end closes the other: a cancelled read would close its
	// socket without the reason the other side gave.
	ownerDone := make(chan struct{})
	go func() {
		defer close(ownerDone)
		err := copyFrames(ctx, dash, up)
		if code := websocket.CloseStatus(err); code != -1 {
			dash.Close(code, closeReason(err)) // the owner ended the socket: say why
		} else {
			restarting() // the owner went away; a no-op when the dashboard left first
		}
	}()
	stopPings := pingEvery(ctx, dash, pingInterval)
	err = copyFrames(ctx, up, dash)
	stopPings()
	if code := websocket.CloseStatus(err); code != -1 {
		up.Close(code, closeReason(err))
	}
	up.CloseNow()
	<-ownerDone
	return true
}

// pingInterval is how often a piped dashboard is pinged: the owner's pings
// reach this replica, which answers them, not the dashboard.
const pingInterval = 30 * time.Second

// pingEvery pings c every d (its reads answer the pongs) and closes it when
// a pong does not come back within d, so that a dashboard whose network
// vanished ends its pipe; stop ends the pings.
func pingEvery(ctx context.Context, c *websocket.Conn, d time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			pctx, pcancel := context.WithTimeout(ctx, d)
			err := c.Ping(pctx)
			pcancel()
			if err != nil && ctx.Err() == nil {
				c.CloseNow()
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// copyFrames writes every frame read from src to dst until either fails.
func copyFrames(ctx context.Context, dst, src *websocket.Conn) error {
	for {
		typ, b, err := src.Read(ctx)
		if err != nil {
			return err
		}
		if err := dst.Write(ctx, typ, b); err != nil {
			return err
		}
	}
}

// closeReason is the reason of a close error.
func closeReason(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}
