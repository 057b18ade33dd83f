package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Timing and naming of the flow.
const (
	// CallbackPath is where the relay serves [Manager.CallbackHandler].
	CallbackPath = "/oauth/callback"
	// StartPath is where the relay serves [Manager.StartHandler]: next to
	// the callback, at the callback URL's sibling "start".
	StartPath = "/oauth/start"
	// stateTTL is how long an authorization URL stays usable.
	stateTTL = 10 * time.Minute
	// defaultClientName is how the relay names itself to authorization servers.
	defaultClientName = "Switchboard"
	// refreshMargin: a token this close to its expiry is refreshed before use.
	refreshMargin = time.Minute
	// requestTimeout bounds each exchange with an authorization server.
	requestTimeout = 30 * time.Second
	// discoveryTTL is how long discovered metadata is reused.
	discoveryTTL = 10 * time.Minute
	// maxSecretLen bounds a client id or secret entered by a person.
	maxSecretLen = 1024
)

// Store keeps registrations, tokens and pending states; *store.OAuthStore
// satisfies it.
type Store interface {
	PutClient(ctx context.Context, c store.OAuthClient) error
	Client(ctx context.Context, user, server, source string) (store.OAuthClient, bool, error)
	DeleteClient(ctx context.Context, user, server, source string) error
	PutToken(ctx context.Context, t store.OAuthToken) error
	Token(ctx context.Context, user, server string) (store.OAuthToken, bool, error)
	DeleteToken(ctx context.Context, user, server string) error
	PutState(ctx context.Context, st store.OAuthState) error
	ConsumeState(ctx context.Context, state string, now time.Time, check func(store.OAuthState) error) (store.OAuthState, error)
	Forget(ctx context.Context, user, server string) error
	// Machine returns the machine access of user's server, if any.
	Machine(ctx context.Context, user, server string) (store.OAuthMachine, bool, error)
}

// Credentials are a client pre-registered with an authorization server,
// given in the relay's configuration. They apply to the servers whose
// authorization server is Issuer, or to the server at Server, or both when
// both are set; at least one must be.
type Credentials struct {
	Issuer       string `json:"issuer,omitempty"`
	Server       string `json:"server,omitempty"` // an MCP server URL
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// Config configures a [Manager].
type Config struct {
	Store Store // required
	// HTTPClient carries every request to resource and authorization
	// servers (discovery, registration, token); required, and meant to be a
	// netguard client.
	HTTPClient *http.Client
	// CallbackURL is the absolute URL of [CallbackPath] as the browser
	// reaches the relay; its sibling "start" is that of [StartPath]. Without
	// it [Manager.Authorize] fails.
	CallbackURL string
	// ClientMetadataURL, when set, is the https URL at which the relay serves
	// its client ID metadata document ([Manager.MetadataHandler]); it is
	// then the relay's client id at authorization servers that support such
	// documents. It needs a CallbackURL, the document's redirect URI.
	ClientMetadataURL string
	ClientName        string        // default "Switchboard"
	Clients           []Credentials // pre-registered clients
	// CrossApp, when set, is the enterprise identity provider of the
	// servers configured for cross-app access (store.MachineCrossApp).
	CrossApp *CrossApp
	// SuccessURL and ErrorURL, when set, are where the callback sends the
	// popup after a success or a failure (the failure with an error query
	// parameter), and the start page after a failure. Each is an absolute
	// http(s) URL or a path on the relay ("/..."). By default the popup
	// shows a page that closes it, or a plain error page.
	SuccessURL, ErrorURL string
	Logger               *slog.Logger     // nil discards
	Now                  func() time.Time // the clock; nil means time.Now
}

// Manager runs the OAuth side of the relay for every user's servers. It is
// safe for concurrent use.
type Manager struct {
	cfg   Config
	store Store
	// fetch reads metadata: the configured client, refusing a redirect
	// from https to http.
	fetch *http.Client
	// post sends registrations and token requests, which carry secrets: the
	// configured client, following no redirect.
	post    *http.Client
	log     *slog.Logger
	now     func() time.Time
	binding binding  // how a browser is bound to the authorization it started
	starts  *starts  // authorizations waiting for their browser
	start   *url.URL // the start page, nil without a CallbackURL

	mu      sync.Mutex
	clients map[clientKey]*Client
}

type clientKey struct{ user, server string }

// NewManager checks cfg and returns a manager.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Store == nil || cfg.HTTPClient == nil {
		return nil, errors.New("oauth: a store and an HTTP client are required")
	}
	var callback *url.URL
	if cfg.CallbackURL != "" {
		u, err := url.Parse(cfg.CallbackURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("oauth: callback URL %q is not an absolute http(s) URL without a query", cfg.CallbackURL)
		}
		callback = u
	}
	if cfg.ClientMetadataURL != "" {
		u, err := url.Parse(cfg.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return nil, fmt.Errorf("oauth: client metadata URL %q must be an https URL with a path", cfg.ClientMetadataURL)
		}
		if callback == nil {
			return nil, errors.New("oauth: a client metadata URL needs a callback URL, the document's redirect URI")
		}
	}
	for name, dest := range map[string]string{"success": cfg.SuccessURL, "error": cfg.ErrorURL} {
		if dest != "" && !validDestination(dest) {
			return nil, fmt.Errorf("oauth: %s URL %q is neither an absolute http(s) URL nor a path starting with one /", name, dest)
		}
	}
	cfg.Clients = slices.Clone(cfg.Clients) // normalized below; the caller's stay as given
	for i, c := range cfg.Clients {
		if c.ClientID == "" || (c.Issuer == "" && c.Server == "") {
			return nil, fmt.Errorf("oauth: pre-registered client %d needs a client id and an issuer or a server", i+1)
		}
		if c.Server != "" {
			u, err := urlnorm.Normalize(c.Server)
			if err != nil {
				return nil, fmt.Errorf("oauth: pre-registered client %d: %w", i+1, err)
			}
			cfg.Clients[i].Server = u
		}
	}
	if cfg.CrossApp != nil {
		if err := cfg.CrossApp.check(); err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
	}
	if cfg.ClientName == "" {
		cfg.ClientName = defaultClientName
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Manager{
		cfg:     cfg,
		store:   cfg.Store,
		fetch:   noDowngrade(cfg.HTTPClient),
		post:    noRedirect(cfg.HTTPClient),
		log:     cfg.Logger,
		now:     cfg.Now,
		starts:  newStarts(),
		clients: map[clientKey]*Client{},
	}
	if callback != nil {
		m.binding = newBinding(callback)
		m.start = callback.ResolveReference(&url.URL{Path: "start"})
	}
	return m, nil
}

// validDestination reports whether dest may be where the popup is sent: an
// absolute http(s) URL, or a path on the relay (one leading slash; "//"
// and "/\" would leave for another host).
func validDestination(dest string) bool {
	u, err := url.Parse(dest)
	if err != nil || strings.ContainsFunc(dest, isControl) {
		return false
	}
	if u.Scheme == "" {
		return u.Host == "" && strings.HasPrefix(dest, "/") && !strings.HasPrefix(dest, "//") && !strings.HasPrefix(dest, "/\\")
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// For returns the OAuth client of user's server at serverURL (normalized),
// creating it on first use; a connection uses it as its authorizer. Its
// stored token and pre-registered credentials are loaded at once.
func (m *Manager) For(user, server, serverURL string) *Client {
	m.mu.Lock()
	c, ok := m.clients[clientKey{user, server}]
	if !ok {
		c = newClient(m, user, server, serverURL)
		m.clients[clientKey{user, server}] = c
	}
	m.mu.Unlock()
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		c.load(ctx)
	}
	return c
}

// lookup returns the client of user's server, or nil.
func (m *Manager) lookup(user, server string) *Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.clients[clientKey{user, server}]
}

// Authorize starts an authorization of user's server and returns the
// authorization server's URL to open: discovery (reused while fresh), the
// client identity (registering if needed), PKCE and a state valid for ten
// minutes. The server's connection must exist ([Manager.For]). Errors are
// *wire.Error with a message fit to show.
//
// Nothing ties the URL to a browser: it is for a headless client that
// opens it itself and hands the redirect to [Manager.Callback]. A
// dashboard uses [Manager.AuthorizeInBrowser], since the callback handler
// accepts only a browser that went through the start page.
func (m *Manager) Authorize(ctx context.Context, user, server string) (string, error) {
	p, err := m.authorize(ctx, user, server)
	if err != nil {
		return "", err
	}
	return p.authURL, nil
}

// AuthorizeInBrowser starts an authorization as [Manager.Authorize] does
// and returns the relay's start page for it (<callback URL's sibling
// start>?state=...), which the user's dashboard opens. The start page
// ([Manager.StartHandler]) accepts only the user's own signed-in browser,
// binds that browser to the authorization with a cookie and sends it on to
// the authorization server; the callback handler then accepts the
// authorization only from that browser. So a link to someone else's
// authorization, followed by another user, authorizes nothing.
func (m *Manager) AuthorizeInBrowser(ctx context.Context, user, server string) (string, error) {
	p, err := m.authorize(ctx, user, server)
	if err != nil {
		return "", err
	}
	m.starts.add(p, m.now())
	u := *m.start
	u.RawQuery = url.Values{"state": {p.state}}.Encode()
	return u.String(), nil
}

// authorize starts an authorization of user's server.
func (m *Manager) authorize(ctx context.Context, user, server string) (*pending, error) {
	if m.cfg.CallbackURL == "" {
		return nil, wire.NewError(wire.CodeInternal, "the relay has no public URL for the authorization server to return to; start it with --public-url")
	}
	c := m.lookup(user, server)
	if c == nil {
		return nil, errNoConnection
	}
	return c.authorize(ctx)
}

// errNoConnection is the op error for a server without a connection.
var errNoConnection = wire.NewError(wire.CodeNotFound, "no connection to this server")

// SetClient stores pre-registered credentials for user's server, entered by
// a person; they take precedence over every other client identity. They
// are bound to the authorization server the server names now (discovered
// if need be; without one SetClient fails) and are used only with that
// authorization server: a server that later names another one gets an
// error asking for credentials again, never this secret. An empty clientID
// deletes them. An empty secret makes a public client. The secret is
// sealed at rest and never shown again. Errors are *wire.Error.
func (m *Manager) SetClient(ctx context.Context, user, server, clientID, clientSecret string) error {
	if len(clientID) > maxSecretLen || len(clientSecret) > maxSecretLen {
		return wire.NewError(wire.CodeBadRequest, fmt.Sprintf("a client id or secret is at most %d bytes", maxSecretLen))
	}
	if strings.TrimSpace(clientID) != clientID || strings.ContainsFunc(clientID+clientSecret, isControl) {
		return wire.NewError(wire.CodeBadRequest, "a client id or secret may not hold spaces at its ends or control characters")
	}
	c := m.lookup(user, server)
	if c == nil {
		return errNoConnection
	}
	issuer := ""
	var err error
	if clientID == "" {
		err = m.store.DeleteClient(ctx, user, server, store.ClientManual)
	} else {
		d, derr := c.discovery(ctx)
		if derr != nil {
			return wire.NewError(wire.CodeUpstream, "the credentials were not saved: the relay must know the server's authorization server to bind them to, and "+message(derr))
		}
		issuer = d.issuer()
		err = m.store.PutClient(ctx, store.OAuthClient{User: user, Server: server, Source: store.ClientManual, Issuer: issuer, ClientID: clientID, ClientSecret: clientSecret})
	}
	if err != nil {
		m.log.Error("store oauth client", "user", user, "server", server, "err", err)
		return wire.NewError(wire.CodeInternal, "could not save the client credentials")
	}
	m.log.Info("oauth client credentials set", "user", user, "server", server, "issuer", issuer, "cleared", clientID == "")
	c.setManual(clientID, clientSecret, issuer)
	return nil
}

// Forget deletes the tokens, registrations and pending authorizations of
// user's server; call it when the server is removed. It waits for a
// refresh in flight, and nothing the server's client obtains afterwards
// (a refresh, a late callback) is stored.
func (m *Manager) Forget(ctx context.Context, user, server string) error {
	m.Release(user, server)
	if err := m.store.Forget(ctx, user, server); err != nil {
		return fmt.Errorf("forget oauth: %w", err)
	}
	return nil
}

// isControl reports control and invisible format characters.
func isControl(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }
