package replica

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Serve serves a request of user: here when this replica owns the user (or
// takes them now), else at the owner. A request another replica forwarded
// is never forwarded again: when its user moved meanwhile it is answered
// 503, and the sender's client tries again.
func (r *Router) Serve(w http.ResponseWriter, req *http.Request, user string, here http.Handler) {
	rt, err := r.Route(req.Context(), user)
	if err != nil {
		r.cfg.Logger.Warn("replica: route", "user", user, "err", err)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the relay cannot serve this user right now; try again", http.StatusServiceUnavailable)
		return
	}
	if rt.Local() {
		defer rt.Done()
		here.ServeHTTP(w, req)
		return
	}
	if _, forwarded := Forwarded(req.Context()); forwarded {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "this user moved to another replica; try again", http.StatusServiceUnavailable)
		return
	}
	r.forward(w, req, rt.Owner, user)
}

// forward sends req as it came to the owner, which authenticates it again,
// and streams the answer back.
func (r *Router) forward(w http.ResponseWriter, req *http.Request, owner, user string) {
	proof, err := r.cfg.Proofs.mint(user, proofTTL)
	if err != nil {
		http.Error(w, "forward: "+err.Error(), http.StatusInternalServerError)
		return
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: owner})
			pr.Out.Host = pr.In.Host // the owner checks the host the client asked for
			pr.SetXForwarded()
			pr.Out.Header.Set(Header, proof)
		},
		FlushInterval: -1, // event streams pass at once
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			r.cfg.Logger.Warn("replica: forward", "owner", owner, "user", user, "err", err)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "the relay serving this user did not answer (it may be restarting); try again", http.StatusBadGateway)
		},
	}
	proxy.ServeHTTP(w, req)
}

// pipeDialTimeout bounds opening a dashboard's socket at its owner.
const pipeDialTimeout = 5 * time.Second

// Pipe carries an authenticated dashboard's socket to its user's owner: it
// opens a socket there on the dashboard's behalf, sends the dashboard's
// hello and then passes every frame both ways until either side ends. The
// owner keeps the socket's expiry (the proof's) and checks the tokens the
// dashboard sends later. When the owner goes away the dashboard is told the
// relay is restarting, and reconnects.
func (r *Router) Pipe(ctx context.Context, dash *websocket.Conn, owner string, claims authn.Claims, hello wire.Hello) {
	restarting := func() {
		dash.Close(websocket.StatusCode(wire.CloseShuttingDown), "relay restarting")
	}
	ttl := time.Until(claims.Expires)
	if ttl <= 0 {
		dash.Close(websocket.StatusCode(wire.CloseUnauthorized), "token expired")
		return
	}
	proof, err := r.cfg.Proofs.mint(claims.User, ttl)
	if err != nil {
		r.cfg.Logger.Error("replica: pipe", "err", err)
		restarting()
		return
	}
	dctx, cancel := context.WithTimeout(ctx, pipeDialTimeout)
	up, _, err := websocket.Dial(dctx, "ws://"+owner+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{Header: {proof}}})
	cancel()
	if err != nil {
		r.cfg.Logger.Warn("replica: pipe to owner", "owner", owner, "user", claims.User, "err", err)
		restarting()
		return
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
		return
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
	err = copyFrames(ctx, up, dash)
	if code := websocket.CloseStatus(err); code != -1 {
		up.Close(code, closeReason(err))
	}
	up.CloseNow()
	<-ownerDone
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
