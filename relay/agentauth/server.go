package agentauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Routes of the authorization server.
const (
	MetadataPath     = "/.well-known/oauth-authorization-server"
	ResourceMetaPath = "/.well-known/oauth-protected-resource"
	AuthorizePath    = "/oauth/authorize"
	TokenPath        = "/oauth/token"
	RegisterPath     = "/oauth/register"
	RevokePath       = "/oauth/revoke"
	ConsentPath      = "/agents/consent" // the dashboard's consent page
	ConsentParam     = "request"         // names the pending authorization on ConsentPath
)

// Defaults of [Config].
const (
	DefaultAccessTTL  = time.Hour
	DefaultRefreshTTL = 30 * 24 * time.Hour
	DefaultCodeTTL    = time.Minute
	DefaultRequestTTL = 10 * time.Minute
	DefaultClientTTL  = 24 * time.Hour
)

// Store is the persistence the server needs; *store.Store satisfies it.
type Store interface {
	CreateAgentGrant(ctx context.Context, g store.AgentGrant, tokens ...store.AgentToken) (store.AgentGrant, error)
	AgentGrantByToken(ctx context.Context, hash []byte) (store.AgentGrant, store.AgentToken, error)
	AgentGrants(ctx context.Context, user string) ([]store.AgentGrant, error)
	AgentClientHostKnown(ctx context.Context, user, host string) (bool, error)
	RotateAgentRefresh(ctx context.Context, old []byte, now time.Time, next ...store.AgentToken) (store.AgentGrant, error)
	RevokeAgentGrant(ctx context.Context, user, id string) error
	DeleteAgentToken(ctx context.Context, hash []byte) error
	TouchAgentGrant(ctx context.Context, id string, now time.Time) error
	DeleteExpiredAgentTokens(ctx context.Context, now time.Time) error
	PutAgentClient(ctx context.Context, c store.AgentClient) (store.AgentClient, error)
	AgentClientByID(ctx context.Context, id string, now time.Time) (store.AgentClient, error)
	DeleteUnusedAgentClients(ctx context.Context, now time.Time) error
	PutAgentAuthorization(ctx context.Context, id string, body []byte, now, expires time.Time, max int) error
	PendingAgentAuthorization(ctx context.Context, id string, now time.Time) (store.AgentAuthorization, error)
	DenyAgentAuthorization(ctx context.Context, id string, now time.Time) (store.AgentAuthorization, error)
	ApproveAgentAuthorization(ctx context.Context, id, user, code string, body []byte, now, expires time.Time) error
	SpendAgentCode(ctx context.Context, code string, now time.Time) (store.AgentAuthorization, error)
	AgentCodeGranted(ctx context.Context, code, grant string) (reused bool, err error)
}

// Servers tells whether a user has a server, and its name.
type Servers interface {
	ServerName(user, id string) (name string, ok bool)
}

// Config builds a [Server].
type Config struct {
	Store   Store   // required
	Servers Servers // required: the users' servers, for consent and scopes
	// Endpoint is the path of the agent endpoint of all servers (/mcp), and
	// ServerEndpoint the prefix of one server's (/mcp/s/, + id): the
	// protected resources the server issues tokens for. Required.
	Endpoint, ServerEndpoint string
	// CodeEndpoint, when set, is the aggregate endpoint in code mode
	// (/mcp/code), a protected resource of all servers too.
	CodeEndpoint string
	// HTTPClient fetches client ID metadata documents; it must be the
	// relay's netguard client.
	HTTPClient *http.Client
	// LoopbackClients lets a client id be an http URL on a loopback
	// address (a relay that listens on loopback only).
	LoopbackClients bool
	// PublicURL is the relay's address as people reach it; requests for
	// another (loopback) host are served under their own Host.
	PublicURL string
	// Revoked is told the agent key id ([KeyID]) of a grant revoked, to
	// end its sessions.
	Revoked func(keyID string)
	Logger  *slog.Logger
	// Lifetimes; zero picks the defaults above.
	AccessTTL, RefreshTTL, CodeTTL, RequestTTL, ClientTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is the authorization server. It keeps nothing of a flow in
// memory: pending authorizations and codes are in the store, so that
// relays sharing a store (replicas) serve each step wherever it lands.
type Server struct {
	cfg       Config
	cimd      *cimdCache
	register  *limiters // per address, on registrations
	authorize *limiters // per address, on authorization requests
}

// New returns a server. A config without the endpoints' paths is a
// programming error: New panics rather than issue tokens for no resource.
func New(cfg Config) *Server {
	if cfg.Endpoint == "" || cfg.ServerEndpoint == "" {
		panic("agentauth: Config.Endpoint and Config.ServerEndpoint are required")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.AccessTTL, DefaultAccessTTL)
	def(&cfg.RefreshTTL, DefaultRefreshTTL)
	def(&cfg.CodeTTL, DefaultCodeTTL)
	def(&cfg.RequestTTL, DefaultRequestTTL)
	def(&cfg.ClientTTL, DefaultClientTTL)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Transport: refuseAll{}}
	}
	return &Server{
		cfg: cfg, cimd: newCIMDCache(),
		register:  newLimiters(registerRate, registerBurst),
		authorize: newLimiters(authorizeRate, authorizeBurst),
	}
}

// Register mounts the server's routes on mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.Handle("GET "+MetadataPath, cors(http.HandlerFunc(s.serveMetadata)))
	mux.Handle("GET "+ResourceMetaPath+s.cfg.Endpoint, cors(http.HandlerFunc(s.serveResourceMetadata)))
	mux.Handle("GET "+ResourceMetaPath+s.cfg.ServerEndpoint+"{id}", cors(http.HandlerFunc(s.serveResourceMetadata)))
	paths := []string{MetadataPath, ResourceMetaPath + s.cfg.Endpoint, ResourceMetaPath + s.cfg.ServerEndpoint + "{id}", RegisterPath, TokenPath, RevokePath}
	if s.cfg.CodeEndpoint != "" {
		mux.Handle("GET "+ResourceMetaPath+s.cfg.CodeEndpoint, cors(http.HandlerFunc(s.serveResourceMetadata)))
		paths = append(paths, ResourceMetaPath+s.cfg.CodeEndpoint)
	}
	mux.Handle("POST "+RegisterPath, cors(http.HandlerFunc(s.serveRegister)))
	mux.Handle("GET "+AuthorizePath, http.HandlerFunc(s.serveAuthorize))
	mux.Handle("POST "+TokenPath, cors(http.HandlerFunc(s.serveToken)))
	mux.Handle("POST "+RevokePath, cors(http.HandlerFunc(s.serveRevoke)))
	for _, p := range paths {
		mux.Handle("OPTIONS "+p, cors(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })))
	}
}

// cors lets any page read these endpoints: none of them reads a cookie.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Mcp-Protocol-Version")
		next.ServeHTTP(w, r)
	})
}

// Issuer is the relay's issuer identifier as r reaches it: the public URL
// when r came through it, else r's own scheme and Host (which the relay's
// Host check admitted).
func (s *Server) Issuer(r *http.Request) string {
	if u, err := url.Parse(s.cfg.PublicURL); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return u.Scheme + "://" + u.Host // the relay's routes are at the root of its address
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// ResourceURL is the canonical URL of the agent endpoint r addresses.
func (s *Server) ResourceURL(r *http.Request) string {
	return s.Issuer(r) + strings.TrimRight(r.URL.Path, "/")
}

// MetadataURL is the Protected Resource Metadata URL of the agent endpoint
// r addresses, for the WWW-Authenticate challenge.
func (s *Server) MetadataURL(r *http.Request) string {
	return s.Issuer(r) + ResourceMetaPath + strings.TrimRight(r.URL.Path, "/")
}

// KeyID is the agent key id of grant id: the gateway keeps one view and
// one rate limit per key id.
func KeyID(grant string) string { return "grant:" + grant }

// refuseAll is the transport of a server built without a client: fail closed.
type refuseAll struct{}

func (refuseAll) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("the authorization server has no HTTP client for client metadata documents")
}
