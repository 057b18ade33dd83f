package signin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// The routes of sign-in.
const (
	// StartPath sends the browser to the identity provider.
	StartPath = "/login/oidc"
	// CallbackPath is where the identity provider sends it back: the
	// redirect URI registered at the provider is the public URL + CallbackPath.
	CallbackPath = "/login/oidc/callback"
)

// DefaultGroupsClaim is the ID token claim read for groups unless configured.
const DefaultGroupsClaim = "groups"

// Settings are the operator's choices of sign-in.
type Settings struct {
	Issuer, ClientID string
	ClientSecret     string // empty for a public client (PKCE alone)
	// AllowedDomains, when set, admits only people whose verified email
	// is in one of these domains.
	AllowedDomains []string
	// AllowedGroups, when set, admits only members of one of these groups
	// (the GroupsClaim of the ID token).
	AllowedGroups []string
	GroupsClaim   string // DefaultGroupsClaim when empty
}

// Sessions starts and ends the relay's own sessions; the service
// implements it with the relay's signer and session cookie.
type Sessions interface {
	// Start sets the session cookie of user on w.
	Start(w http.ResponseWriter, r *http.Request, user string) error
	// End clears the session cookie on w and returns the user that r was
	// signed in as, if any.
	End(w http.ResponseWriter, r *http.Request) (user string)
}

// Config is what New needs besides the settings.
type Config struct {
	Settings
	// PublicURL is the relay's address as people reach it; the callback
	// is under it.
	PublicURL string
	// HTTPClient talks to the identity provider.
	HTTPClient *http.Client
	Tokens     *store.IdentityTokens
	Sessions   Sessions
	// SecureCookie marks the short-lived state cookie Secure.
	SecureCookie bool
	Logger       *slog.Logger
}

// Provider is sign-in with one identity provider.
type Provider struct {
	cfg        Config
	provider   *oidc.Provider
	verifier   *oidc.IDTokenVerifier
	oauth      oauth2.Config
	endSession string // the provider's end_session_endpoint, if it has one

	mu      sync.Mutex
	pending map[string]pending // by state
}

// New discovers the identity provider at cfg.Issuer and returns sign-in
// with it.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	switch {
	case cfg.Issuer == "":
		return nil, errors.New("sign-in: the identity provider's issuer is required")
	case cfg.ClientID == "":
		return nil, errors.New("sign-in: the relay's client id at the identity provider is required")
	case cfg.PublicURL == "":
		return nil, errors.New("sign-in: the relay's public URL is required, for the callback the provider redirects to")
	case cfg.Tokens == nil || cfg.Sessions == nil:
		return nil, errors.New("sign-in: a token store and sessions are required")
	}
	for _, d := range cfg.AllowedDomains {
		if d == "" || strings.ContainsAny(d, "@ ") {
			return nil, fmt.Errorf("sign-in: allowed domain %q is not a domain", d)
		}
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = DefaultGroupsClaim
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, cfg.HTTPClient), cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("sign-in: discover the identity provider: %w", err)
	}
	var extra struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if err := p.Claims(&extra); err != nil {
		return nil, fmt.Errorf("sign-in: read the identity provider's metadata: %w", err)
	}
	scopes := []string{oidc.ScopeOpenID, "email", "profile", oidc.ScopeOfflineAccess}
	if len(cfg.AllowedGroups) > 0 {
		scopes = append(scopes, cfg.GroupsClaim)
	}
	return &Provider{
		cfg:      cfg,
		provider: p,
		verifier: p.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		oauth: oauth2.Config{
			ClientID:     cfg.ClientID,
			ClientSecret: cfg.ClientSecret,
			Endpoint:     p.Endpoint(),
			RedirectURL:  strings.TrimRight(cfg.PublicURL, "/") + CallbackPath,
			Scopes:       scopes,
		},
		endSession: extra.EndSession,
		pending:    map[string]pending{},
	}, nil
}

// Name is how the login page names the provider: its issuer's host.
func (p *Provider) Name() string {
	if u, err := url.Parse(p.cfg.Issuer); err == nil && u.Host != "" {
		return u.Host
	}
	return p.cfg.Issuer
}

// TokenEndpoint is the provider's token endpoint, for cross-app access.
func (p *Provider) TokenEndpoint() string { return p.oauth.Endpoint.TokenURL }

// UserID names the person with subject sub at the provider: the issuer, a
// "#" and the subject, so that two providers' subjects never meet.
func (p *Provider) UserID(sub string) string { return p.cfg.Issuer + "#" + sub }

// Handle mounts the start and callback routes on mux; the relay mounts
// Logout behind its own origin check.
func (p *Provider) Handle(mux *http.ServeMux) {
	mux.HandleFunc("GET "+StartPath, p.start)
	mux.HandleFunc("GET "+CallbackPath, p.callback)
}

// client returns ctx carrying the provider's HTTP client for oauth2 and oidc.
func (p *Provider) client(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, p.cfg.HTTPClient)
}
