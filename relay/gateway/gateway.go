package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/codemode"
	"github.com/switchboard-mcp/switchboard/relay/session"
)

// Routes of the gateway.
const (
	// Path is the aggregate endpoint.
	Path = "/mcp"
	// ServerPath prefixes the endpoint of one server: ServerPath + id.
	ServerPath = "/mcp/s/"
)

// Defaults of [Config].
const (
	DefaultRate         = 20 // requests a second per key
	DefaultBurst        = 40
	DefaultSessionIdle  = 30 * time.Minute
	DefaultWaitingEvery = 10 * time.Second
	// syncDelay gathers a burst of server changes into one sync.
	syncDelay = 20 * time.Millisecond
)

// Config builds a [Gateway].
type Config struct {
	Sessions *session.Manager        // the users' sessions; required
	Auth     agentkeys.Authenticator // required
	// Origins admits the browser pages that may call the gateway; a request
	// without an Origin header (not from a browser) passes. Nil refuses
	// every request that has one.
	Origins *authn.OriginPolicy
	Logger  *slog.Logger // nil discards
	Version string       // the relay's version, in serverInfo
	// Limits is the request budget of each key, shared with the tool API
	// ([API.Limits]); nil makes one of Rate and Burst (defaults
	// [DefaultRate] and [DefaultBurst]).
	Limits *Limits
	Rate   rate.Limit
	Burst  int
	// SessionIdle closes an MCP session idle this long; default
	// [DefaultSessionIdle].
	SessionIdle time.Duration
	// MaxSessions caps the live MCP sessions of one key, over all its
	// endpoints (see sessioncap.go); default [DefaultMaxSessions].
	MaxSessions int
	// WaitingEvery is how often an agent waiting for a person hears so;
	// default [DefaultWaitingEvery].
	WaitingEvery time.Duration
	// TaskAfter is how long a call of a 2026-07-28 agent that declared
	// the tasks extension may run before it becomes a task; default
	// [DefaultTaskAfter].
	TaskAfter time.Duration
	// CodeLimits bound a code-mode program (zero fields take
	// relay/codemode's defaults).
	CodeLimits codemode.Limits
	// Protected, when set, makes the endpoint an OAuth protected resource:
	// a refusal names its metadata, and a token bound to a resource works
	// only there. Nil: grants bound to a resource are refused.
	Protected ProtectedResource
}

// ProtectedResource names the endpoint a request addresses as an OAuth
// protected resource (relay/agentauth implements it).
type ProtectedResource interface {
	// ResourceURL is the canonical URL of the endpoint r addresses.
	ResourceURL(r *http.Request) string
	// MetadataURL is the Protected Resource Metadata (RFC 9728) URL of it.
	MetadataURL(r *http.Request) string
}

// Gateway is the agent endpoint. It is an [http.Handler] for [Path] and
// [ServerPath]; the Host check is the router's (relay/service).
type Gateway struct {
	cfg Config
	log *slog.Logger

	serveFunc http.Handler // serve, for the go-sdk's bearer check

	mu       sync.Mutex
	views    map[viewKey]*view
	programs map[string]int // code-mode programs running, by key
	closed   bool

	rounds rounds // calls waiting for their agent's retry (rounds.go)

	opening  sync.Mutex     // one admission at a time (sessioncap.go)
	openingN map[string]int // sessions being opened, by key; under opening
}

// viewKey names a view: a key and an endpoint.
type viewKey struct {
	key, only string
	code      bool // CodePath
}

// New returns a gateway.
func New(cfg Config) *Gateway {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Limits == nil {
		cfg.Limits = NewLimits(cfg.Rate, cfg.Burst)
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.WaitingEvery <= 0 {
		cfg.WaitingEvery = DefaultWaitingEvery
	}
	if cfg.TaskAfter <= 0 {
		cfg.TaskAfter = DefaultTaskAfter
	}
	g := &Gateway{cfg: cfg, log: cfg.Logger, views: map[viewKey]*view{}, programs: map[string]int{}, openingN: map[string]int{}}
	g.serveFunc = http.HandlerFunc(g.serve)
	return g
}

// ServeHTTP implements [http.Handler]: the Origin check, the key's grant
// (the go-sdk's bearer middleware, with the session bound to the key, so
// that a session id of one key is refused with another), the key's rate
// limit, then the MCP transport of the key's view.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" && (g.cfg.Origins == nil || !g.cfg.Origins.Allowed(r)) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if _, _, ok := g.route(r.URL.Path); !ok {
		http.NotFound(w, r)
		return
	}
	opts := &auth.RequireBearerTokenOptions{AllowMissingExpiration: true}
	if g.cfg.Protected != nil {
		opts.ResourceMetadataURL = g.cfg.Protected.MetadataURL(r)
	}
	cw := &challengeWriter{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), refusalKey{}, &cw.refusal))
	auth.RequireBearerToken(g.verify, opts)(g.serveFunc).ServeHTTP(cw, r)
}

// refusalKey carries, to verify, where to say why a token was refused.
type refusalKey struct{}

// challengeWriter adds to the go-sdk's challenge of a refused token the
// error RFC 6750 section 3.1 asks for, so that a client tells its person why
// instead of starting an authorization.
type challengeWriter struct {
	http.ResponseWriter
	refusal string // why verify refused the token; empty when it did not
}

func (c *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.refusal != "" {
		h := c.Header()
		challenge := h.Get("WWW-Authenticate")
		if challenge == "" {
			challenge = "Bearer "
		} else {
			challenge += ", "
		}
		h.Set("WWW-Authenticate", challenge+fmt.Sprintf(`error="invalid_token", error_description=%q`, c.refusal))
	}
	c.ResponseWriter.WriteHeader(code)
}

// grantKey is where verify puts the grant in the token info.
const grantKey = "switchboard/grant"

// verify is the go-sdk's token verifier: the grant of an agent key.
func (g *Gateway) verify(ctx context.Context, bearer string, r *http.Request) (*auth.TokenInfo, error) {
	refuse := func(why string) (*auth.TokenInfo, error) {
		if at, ok := ctx.Value(refusalKey{}).(*string); ok {
			*at = why
		}
		return nil, fmt.Errorf("%w: %s", auth.ErrInvalidToken, why)
	}
	grant, err := g.cfg.Auth.Authenticate(ctx, bearer)
	if err != nil || grant.User == "" || grant.KeyID == "" || grant.Expired(time.Now()) {
		return refuse("unknown, revoked or expired agent key or access token")
	}
	if grant.Resource != "" && (g.cfg.Protected == nil || g.cfg.Protected.ResourceURL(r) != grant.Resource) {
		return refuse("the access token is for another endpoint of this relay")
	}
	return &auth.TokenInfo{UserID: grant.KeyID, Expiration: grant.Expires, Extra: map[string]any{grantKey: grant}}, nil
}

// serve serves an authenticated request.
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	if cw, ok := w.(*challengeWriter); ok {
		w = cw.ResponseWriter // the transport's streams need the server's own writer
	}
	grant, _ := auth.TokenInfoFromContext(r.Context()).Extra[grantKey].(agentkeys.Grant)
	only, code, _ := g.route(r.URL.Path)
	if !g.cfg.Limits.Allow(grant.KeyID) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many requests for this key", http.StatusTooManyRequests)
		return
	}
	if only != "" && (!grant.AllowsServer(only) || !g.hasServer(grant.User, only)) {
		g.retireKey(viewKey{key: grant.KeyID, only: only}, "its server left the key's scope")
		http.Error(w, "no such server for this key", http.StatusNotFound)
		return
	}
	k := viewKey{key: grant.KeyID, only: only, code: code}
	v, err := g.view(grant, k)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	v.expireAt(grant.Expires, func() { g.retire(k, v, "its key expired") })
	if statelessRequest(r) {
		v.stateless.ServeHTTP(w, r)
		return
	}
	if opensSession(r) {
		g.openSession(w, r, grant.KeyID, v)
		return
	}
	v.serveSession(w, r, r.Header.Get(sessionHeader))
}

// protocolHeader names the protocol version of a request (Streamable HTTP).
const protocolHeader = "Mcp-Protocol-Version"

// statelessRequest reports whether r is a request of 2026-07-28 or later,
// which needs no session: it carries its version (and, in its _meta, the
// client's capabilities and log level), so any replica serves it with the
// key's view of the person's servers alone.
func statelessRequest(r *http.Request) bool {
	return newEra(r.Header.Get(protocolHeader)) && r.Header.Get(sessionHeader) == ""
}

// route returns the server of a path (empty for the aggregate endpoints)
// and whether it is [CodePath].
func (g *Gateway) route(path string) (only string, code, ok bool) {
	switch path {
	case Path, Path + "/":
		return "", false, true
	case CodePath, CodePath + "/":
		return "", true, true
	}
	id, ok := strings.CutPrefix(path, ServerPath)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false, false
	}
	return id, false, true
}

// hasServer reports whether user has server id.
func (g *Gateway) hasServer(user, id string) bool {
	for _, st := range g.cfg.Sessions.Session(user).Servers() {
		if st.ID == id {
			return true
		}
	}
	return false
}

// errClosed refuses requests once the gateway closed.
var errClosed = errors.New("the relay is shutting down")

// view returns the view k of grant's key, made current with grant.
func (g *Gateway) view(grant agentkeys.Grant, k viewKey) (*view, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, errClosed
	}
	v, ok := g.views[k]
	g.mu.Unlock()
	if ok && v.live() && v.grant.Load().User == grant.User {
		v.setGrant(grant)
		return v, nil
	}
	nv := g.newView(grant, k)
	g.mu.Lock()
	old, raced := g.views[k]
	switch {
	case g.closed:
		g.mu.Unlock()
		nv.close()
		return nil, errClosed
	case raced && old != v && old.live() && old.grant.Load().User == grant.User: // another request made it first
		g.mu.Unlock()
		nv.close()
		old.setGrant(grant)
		return old, nil
	}
	g.views[k] = nv
	g.mu.Unlock()
	if old != nil {
		old.close() // a key id reused for another user: nothing carries over
	}
	return nv, nil
}

// retire closes view v of k, which ends because of why (its key expired,
// its server went); the key's next request there authenticates again and
// gets a new view if it may.
func (g *Gateway) retire(k viewKey, v *view, why string) {
	g.mu.Lock()
	if g.views[k] == v {
		delete(g.views, k)
	}
	g.mu.Unlock()
	v.close()
	g.log.Info("agent sessions closed", "key", k.key, "server", k.only, "why", why)
}

// retireKey retires the view of k, if there is one.
func (g *Gateway) retireKey(k viewKey, why string) {
	g.mu.Lock()
	v, ok := g.views[k]
	g.mu.Unlock()
	if ok {
		g.retire(k, v, why)
	}
}

// CloseKey closes every live MCP session of the key keyID at once; its
// next request authenticates again.
func (g *Gateway) CloseKey(keyID string) {
	g.mu.Lock()
	var closing []*view
	for k, v := range g.views {
		if k.key == keyID {
			closing = append(closing, v)
			delete(g.views, k)
		}
	}
	g.mu.Unlock()
	g.cfg.Limits.Forget(keyID)
	for _, v := range closing {
		v.close()
	}
	if len(closing) > 0 {
		g.log.Info("agent key sessions closed", "key", keyID, "views", strconv.Itoa(len(closing)))
	}
}

// Close closes every session; later requests are refused.
func (g *Gateway) Close() {
	g.mu.Lock()
	g.closed = true
	views := g.views
	g.views = map[viewKey]*view{}
	g.mu.Unlock()
	for _, v := range views {
		v.close()
	}
	g.rounds.cancelAll()
}
