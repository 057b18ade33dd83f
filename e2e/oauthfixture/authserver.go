package oauthfixture

import (
	"crypto"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Where the authorization server publishes its metadata.
const (
	MetadataOAuth = "oauth" // /.well-known/oauth-authorization-server (RFC 8414), the default
	MetadataOIDC  = "oidc"  // /.well-known/openid-configuration (OpenID Connect discovery)
	MetadataNone  = "none"  // nowhere
)

// Token endpoint authentication methods.
const (
	MethodBasic = "client_secret_basic"
	MethodPost  = "client_secret_post"
	MethodNone  = "none"
	// MethodPrivateKeyJWT authenticates with a client assertion signed by
	// the key registered as the client's PublicKey (RFC 7523 2.2).
	MethodPrivateKeyJWT = "private_key_jwt"
)

// Defaults of [AuthConfig].
const (
	DefaultTokenLifetime = time.Hour
	ScopeOfflineAccess   = "offline_access"
	codeLifetime         = time.Minute
	readHeaderTimeout    = 5 * time.Second
	maxFormBytes         = 64 << 10
)

// DefaultScopes are the scopes_supported of an [AuthConfig] without any.
var DefaultScopes = []string{"mcp:read", "mcp:write", "mcp:admin", ScopeOfflineAccess}

// AuthConfig configures an [AuthServer]. The zero value is an RFC 8414
// server at the root of its origin with dynamic registration, PKCE S256,
// DefaultScopes and one-hour access tokens.
type AuthConfig struct {
	// PathPrefix puts the issuer and its endpoints under a path
	// ("/tenant1"); the metadata is then at the path-inserted well-known URL.
	PathPrefix string
	// Metadata is MetadataOAuth (when empty), MetadataOIDC or MetadataNone.
	Metadata string
	// ScopesSupported are advertised and the only scopes granted; nil means
	// DefaultScopes, an empty non-nil slice none at all (any scope accepted).
	ScopesSupported []string
	// TokenLifetime of access tokens; DefaultTokenLifetime when zero.
	TokenLifetime time.Duration
	// NoPKCE leaves code_challenge_methods_supported out of the metadata
	// (the server still demands PKCE).
	NoPKCE bool
	// NoRegistration turns dynamic client registration off.
	NoRegistration bool
	// CIMD accepts https client ids naming client ID metadata documents,
	// resolved by FetchClientMetadata (nil: any redirect URI is accepted).
	CIMD                bool
	FetchClientMetadata func(clientID string) (redirectURIs []string, err error)
	// AuthMethods are the token endpoint authentication methods supported;
	// nil means basic, post and none.
	AuthMethods []string
	// WithheldScopes are accepted in requests but never granted, so that a
	// resource asking for them keeps refusing.
	WithheldScopes []string
	// Clients are pre-registered.
	Clients []Client
	// IssParameter advertises and sends RFC 9207's iss in redirects.
	IssParameter bool
	// IssuerOverride makes the metadata name another issuer (a mismatch).
	IssuerOverride string
	// MetadataAtRoot publishes the metadata at the root well-known URL even
	// with a PathPrefix, as servers of MCP authorization 2025-03-26 did.
	MetadataAtRoot bool
	// ClientCredentials offers the client credentials grant to confidential
	// clients.
	ClientCredentials bool
	// TrustedIdP, when set, offers the JWT bearer grant of cross-app
	// access for the identity assertion grants (ID-JAG) it issues.
	TrustedIdP *IdP
	// SigningAlgs are advertised as token_endpoint_auth_signing_alg_values_supported.
	SigningAlgs []string
}

// Client is a registered client. An empty Secret is a public client.
type Client struct {
	ID, Secret   string
	RedirectURIs []string
	Method       string // token endpoint authentication method; default basic with a secret, none without
	// PublicKey verifies the client assertions of MethodPrivateKeyJWT.
	PublicKey crypto.PublicKey
}

// AuthRequest is an authorization request the server received.
type AuthRequest struct {
	Query url.Values
}

// TokenRequest is a token request the server received.
type TokenRequest struct {
	GrantType  string
	ClientID   string
	AuthMethod string // how the client authenticated: basic, post, none or private_key_jwt
	Resource   string
	Scope      string
	Error      string // the error answered, if any
}

// Stats counts what the server did.
type Stats struct {
	Registrations  int // clients registered dynamically
	Authorizations int // authorization requests received
	Codes          int // codes exchanged for tokens
	Refreshes      int // refresh grants served
}

// AuthServer is a fixture OAuth authorization server. Its methods are safe
// for concurrent use.
type AuthServer struct {
	cfg    AuthConfig
	base   string // http://127.0.0.1:PORT
	issuer string
	http   *http.Server
	done   chan struct{}

	mu        sync.Mutex
	clients   map[string]*Client
	pending   map[string]*authorization // consent pages shown, by request id
	codes     map[string]*grant
	access    map[string]*grant
	refresh   map[string]*grant
	stats     Stats
	authReqs  []AuthRequest
	tokenReqs []TokenRequest
	paths     []string // every path requested, in order
	secrets   []string // every token and client secret handed out, in order
}

// authorization is a validated authorization request awaiting a decision.
type authorization struct {
	clientID, redirectURI, state, challenge, resource string
	scopes                                            []string
}

// grant is what a code, an access token or a refresh token stands for.
type grant struct {
	clientID, redirectURI, challenge, resource string
	scopes                                     []string
	expires                                    time.Time // codes and access tokens
	used                                       bool      // codes
	noRefresh                                  bool      // machine grants get no refresh token
}

// StartAuthServer starts an authorization server on a free 127.0.0.1 port
// and stops it when the test ends.
func StartAuthServer(t testing.TB, cfg AuthConfig) *AuthServer {
	t.Helper()
	a, err := NewAuthServer(cfg)
	if err != nil {
		t.Fatalf("start fixture authorization server: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}

// NewAuthServer starts an authorization server on a free 127.0.0.1 port;
// Close stops it.
func NewAuthServer(cfg AuthConfig) (*AuthServer, error) {
	if cfg.ScopesSupported == nil {
		cfg.ScopesSupported = DefaultScopes
	}
	if cfg.TokenLifetime <= 0 {
		cfg.TokenLifetime = DefaultTokenLifetime
	}
	if cfg.AuthMethods == nil {
		cfg.AuthMethods = []string{MethodBasic, MethodPost, MethodNone}
	}
	if cfg.Metadata == "" {
		cfg.Metadata = MetadataOAuth
	}
	cfg.PathPrefix = "/" + strings.Trim(cfg.PathPrefix, "/")
	if cfg.PathPrefix == "/" {
		cfg.PathPrefix = ""
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	a := &AuthServer{
		cfg:     cfg,
		base:    "http://" + ln.Addr().String(),
		clients: map[string]*Client{},
		pending: map[string]*authorization{},
		codes:   map[string]*grant{},
		access:  map[string]*grant{},
		refresh: map[string]*grant{},
		done:    make(chan struct{}),
	}
	a.issuer = a.base + cfg.PathPrefix
	for _, c := range cfg.Clients {
		a.clients[c.ID] = withMethod(c)
	}
	mux := http.NewServeMux()
	if path := a.metadataPath(); path != "" {
		mux.HandleFunc("GET "+path, a.serveMetadata)
	}
	mux.HandleFunc("GET "+cfg.PathPrefix+"/authorize", a.serveAuthorize)
	mux.HandleFunc("POST "+cfg.PathPrefix+"/authorize/decision", a.serveDecision)
	mux.HandleFunc("POST "+cfg.PathPrefix+"/token", a.serveToken)
	if !cfg.NoRegistration {
		mux.HandleFunc("POST "+cfg.PathPrefix+"/register", a.serveRegister)
	}
	a.http = &http.Server{Handler: a.recording(mux), ReadHeaderTimeout: readHeaderTimeout}
	go func() {
		defer close(a.done)
		a.http.Serve(ln)
	}()
	return a, nil
}

// Close stops the server and its connections.
func (a *AuthServer) Close() {
	a.http.Close()
	<-a.done
}

// URL is the server's origin, http://127.0.0.1:PORT.
func (a *AuthServer) URL() string { return a.base }

// Issuer is the server's issuer identifier: URL plus PathPrefix.
func (a *AuthServer) Issuer() string { return a.issuer }

// recording notes every request's path.
func (a *AuthServer) recording(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.paths = append(a.paths, r.URL.Path)
		a.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// metadataPath is where the metadata is, "" for nowhere.
func (a *AuthServer) metadataPath() string {
	inserted := a.cfg.PathPrefix
	if a.cfg.MetadataAtRoot {
		inserted = ""
	}
	switch a.cfg.Metadata {
	case MetadataOIDC:
		return "/.well-known/openid-configuration" + inserted
	case MetadataNone:
		return ""
	}
	return "/.well-known/oauth-authorization-server" + inserted
}

// serveMetadata answers the authorization server metadata.
func (a *AuthServer) serveMetadata(w http.ResponseWriter, r *http.Request) {
	issuer := a.issuer
	if a.cfg.IssuerOverride != "" {
		issuer = a.cfg.IssuerOverride
	}
	meta := map[string]any{
		"issuer":                                issuer,
		"authorization_endpoint":                a.issuer + "/authorize",
		"token_endpoint":                        a.issuer + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 a.grantTypes(),
		"token_endpoint_auth_methods_supported": a.cfg.AuthMethods,
	}
	if len(a.cfg.SigningAlgs) > 0 {
		meta["token_endpoint_auth_signing_alg_values_supported"] = a.cfg.SigningAlgs
	}
	if len(a.cfg.ScopesSupported) > 0 {
		meta["scopes_supported"] = a.cfg.ScopesSupported
	}
	if !a.cfg.NoPKCE {
		meta["code_challenge_methods_supported"] = []string{"S256"}
	}
	if !a.cfg.NoRegistration {
		meta["registration_endpoint"] = a.issuer + "/register"
	}
	if a.cfg.CIMD {
		meta["client_id_metadata_document_supported"] = true
	}
	if a.cfg.IssParameter {
		meta["authorization_response_iss_parameter_supported"] = true
	}
	if a.cfg.Metadata == MetadataOIDC {
		meta["jwks_uri"] = a.issuer + "/jwks.json"
		meta["subject_types_supported"] = []string{"public"}
		meta["id_token_signing_alg_values_supported"] = []string{"RS256"}
	}
	writeJSON(w, http.StatusOK, meta)
}

// RevokeAccessTokens invalidates every access token issued so far: the
// resource server answers 401 until the client refreshes or authorizes.
func (a *AuthServer) RevokeAccessTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
}

// RevokeRefreshTokens invalidates every refresh token issued so far.
func (a *AuthServer) RevokeRefreshTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.refresh)
}

// ForgetClients forgets every dynamically registered client, as an
// authorization server that lost its registrations.
func (a *AuthServer) ForgetClients() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id := range a.clients {
		if !slices.ContainsFunc(a.cfg.Clients, func(c Client) bool { return c.ID == id }) {
			delete(a.clients, id)
		}
	}
}

// TokenInfo is what an access token grants.
type TokenInfo struct {
	ClientID string
	Scopes   []string
	Resource string
	Expires  time.Time
}

// Verify looks up an access token.
func (a *AuthServer) Verify(token string) (TokenInfo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g, ok := a.access[token]
	if !ok {
		return TokenInfo{}, false
	}
	return TokenInfo{ClientID: g.clientID, Scopes: slices.Clone(g.scopes), Resource: g.resource, Expires: g.expires}, true
}

// Stats returns the counts so far.
func (a *AuthServer) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats
}

// AuthRequests returns the authorization requests received, in order.
func (a *AuthServer) AuthRequests() []AuthRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.authReqs)
}

// TokenRequests returns the token requests received, in order.
func (a *AuthServer) TokenRequests() []TokenRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tokenReqs)
}

// Secrets returns every access token, refresh token and client secret the
// server handed out or was configured with, so that a test can check that
// none of them leaks.
func (a *AuthServer) Secrets() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Clone(a.secrets)
	for _, c := range a.cfg.Clients {
		if c.Secret != "" {
			out = append(out, c.Secret)
		}
	}
	return out
}

// Paths returns the path of every request received, in order.
func (a *AuthServer) Paths() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.paths)
}

// withMethod fills in a client's default authentication method.
func withMethod(c Client) *Client {
	if c.Method == "" {
		c.Method = MethodNone
		if c.Secret != "" {
			c.Method = MethodBasic
		}
	}
	return &c
}

// random returns a fresh opaque value with a prefix telling its kind.
func random(prefix string) string { return prefix + "-" + rand.Text() }

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// oauthError answers an OAuth error (RFC 6749 5.2).
func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

var errNoClient = errors.New("unknown client")
