package service

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/activity"
	"github.com/switchboard-mcp/switchboard/relay/apps"
	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
	"github.com/switchboard-mcp/switchboard/relay/chat"
	"github.com/switchboard-mcp/switchboard/relay/dashboard"
	"github.com/switchboard-mcp/switchboard/relay/hub"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/replica"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/relay/signin"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// KeyFile is the name of the relay's signing key in the data directory.
const KeyFile = "relay-key.pem"

// Service is a running relay.
type Service struct {
	cfg      Config
	store    *store.Store
	key      ed25519.PrivateKey
	signer   *authn.Signer
	login    *authn.Login
	sessions *session.Manager
	hub      *hub.Hub
	handler  http.Handler
	demoStop func()
	agents   agentsPart
	oauth    *oauth.Manager
	signin   *signin.Provider // nil without Config.SignIn
	models   *models.Registry
	chat     *chat.Room
	apps     *apps.Room      // nil when Apps are off
	sandbox  http.Handler    // the Apps origin; nil when Apps are off
	readyMu  sync.Mutex      // one readiness probe at a time
	router   *replica.Router // nil unless the relay is a replica
	internal http.Handler    // the replica's internal address; nil unless a replica

	catalogStop func()         // ends the catalog's watch; nil without a catalog
	catalogDone sync.WaitGroup // the catalog's watch
	catalogRead []byte         // the catalog file's content at start

	closeOnce sync.Once
	closeErr  error
}

// New opens the store, restores every registration and, with
// Config.Demo, starts the demo server.
func New(ctx context.Context, cfg Config) (*Service, error) {
	cfg.fillDefaults()
	st, err := store.OpenTarget(ctx, cfg.Store, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	engine, where := store.DescribeTarget(cfg.Store, cfg.DataDir)
	cfg.Logger.Info("store opened", "engine", engine, "where", where, "data_dir", cfg.DataDir)
	s := &Service{cfg: cfg, store: st}
	if err := s.init(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Service) init(ctx context.Context) error {
	cfg := s.cfg
	verifier, err := s.initAuthn(ctx)
	if err != nil {
		return err
	}
	if err := s.initSignIn(ctx, verifier); err != nil {
		return err
	}
	origins, err := authn.NewOriginPolicy(append(publicOrigin(cfg.PublicURL), cfg.AllowedOrigins...))
	if err != nil {
		return err
	}
	httpClient := netguard.Policy{AllowLoopback: cfg.AllowLoopback}.Client(0)
	dashOps := ops.NewMux() // every room registers the dashboard ops it answers
	if err := s.initSessions(httpClient, dashOps); err != nil {
		return err
	}
	s.hub = hub.New(verifier, origins, s.sessions, cfg.Logger)
	mux, err := s.routes(verifier, origins, httpClient, dashOps)
	if err != nil {
		return err
	}
	s.handler = hostGuard(cfg.AllowedHosts, mux)
	if cfg.ReplicaAddr != "" {
		// Each replica marks the turns another left running as it takes
		// their person (replicaUsers), never every running turn: other
		// replicas run theirs.
		if err := s.initReplica(ctx, mux, verifier); err != nil {
			return err
		}
	} else if err := s.chat.Start(ctx); err != nil {
		return err
	}
	if err := s.sessions.Restore(ctx); err != nil {
		return err
	}
	s.watchStore()
	s.watchCatalog(s.catalogRead)
	if cfg.Demo {
		return s.startDemo(ctx)
	}
	return nil
}

// initAuthn loads the relay's signing key and builds the signer, the login
// and the verifier of the relay's and the embedding site's tokens.
func (s *Service) initAuthn(ctx context.Context) (*authn.Verifier, error) {
	cfg := s.cfg
	key, err := s.relayKey(ctx)
	if err != nil {
		return nil, err
	}
	s.key = key
	s.signer = authn.NewSigner(key, cfg.Issuer, cfg.Audience)
	vcfg := authn.VerifierConfig{
		RelayKey:   key.Public().(ed25519.PublicKey),
		Issuer:     cfg.Issuer,
		Audience:   cfg.Audience,
		HostIssuer: cfg.HostIssuer,
	}
	if cfg.HostKeysFile != "" {
		if vcfg.HostKeys, err = authn.LoadHostKeys(cfg.HostKeysFile); err != nil {
			return nil, err
		}
		if cfg.HostIssuer == "" {
			return nil, errors.New("host keys are configured but no host issuer: set the issuer the embedding site puts in its tokens")
		}
		if cfg.HostIssuer == cfg.Issuer {
			return nil, errors.New("the host issuer must differ from the relay's own issuer, so that each token has one kind of key")
		}
	}
	s.login = authn.NewLogin(s.store, s.signer, cfg.SessionTTL, cfg.Logger)
	s.login.SecureCookie = publicHTTPS(cfg.PublicURL)
	return authn.NewVerifier(vcfg), nil
}

// initSessions builds the servers' OAuth, the stdio servers of the
// configuration, the catalog, the models, the agent call log and the users' sessions,
// and registers their ops on dashOps.
func (s *Service) initSessions(httpClient *http.Client, dashOps *ops.Mux) error {
	cfg := s.cfg
	auth, err := s.newOAuth(httpClient)
	if err != nil {
		return err
	}
	s.oauth = auth
	stdio, err := loadStdioServers(cfg.StdioConfigFile)
	if err != nil {
		return err
	}
	if missing := stdio.missing(); len(missing) > 0 {
		cfg.Logger.Warn("stdio servers whose command is not in PATH now", "servers", missing)
	}
	offered, read, err := loadCatalog(cfg.CatalogFile)
	if err != nil {
		return err
	}
	s.catalogRead = read
	reg, drafter, err := s.newModels(httpClient)
	if err != nil {
		return err
	}
	s.models = reg
	reg.HandleOps(dashOps)
	s.agents.log = &activity.Log{Store: s.store, Logger: cfg.Logger}
	s.sessions = session.NewManager(session.Config{
		Store:      s.store,
		Dial:       s.dialer(httpClient, auth, stdio),
		Icons:      httpClient,
		Logger:     cfg.Logger,
		Ops:        dashOps,
		Auth:       dashboardAuth{auth},
		Asks:       broker.Config{Timeout: cfg.AskTimeout},
		Drafter:    drafter,
		Activity:   s.agents.log,
		Configured: stdio.list,
		Catalog:    offered,
		MaxResult:  cfg.MaxResultBytes,
		Chats:      func(ctx context.Context, user string) ([]wire.Chat, error) { return s.chat.Load(ctx, user) },
		OnDemand:   cfg.ReplicaAddr != "",
	})
	s.chat = chat.New(chat.Config{Sessions: s.sessions, Store: s.store, Models: reg, Logger: cfg.Logger, MaxSteps: cfg.ChatSteps})
	s.chat.HandleOps(dashOps)
	return s.initApps(dashOps)
}

// initApps builds the MCP Apps sandbox and room when Config.AppsOrigin is
// set, and registers the room's ops on dashOps. The dashboard runs on the
// relay's own origins, which alone may frame the sandbox, and which no view
// may reach.
func (s *Service) initApps(dashOps *ops.Mux) error {
	cfg := s.cfg
	if cfg.AppsOrigin == "" {
		return nil
	}
	own := append(publicOrigin(cfg.PublicURL), cfg.AllowedOrigins...)
	if len(own) == 0 {
		return errors.New("apps: an Apps origin needs the relay's public URL, whose pages alone may frame it")
	}
	if slices.Contains(own, cfg.AppsOrigin) {
		return fmt.Errorf("apps: the Apps origin %s must differ from the relay's", cfg.AppsOrigin)
	}
	sandbox, err := apps.NewSandbox(apps.SandboxConfig{Origin: cfg.AppsOrigin, Hosts: own, Refused: own})
	if err != nil {
		return err
	}
	room, err := apps.New(apps.Config{Sessions: s.sessions, Own: append([]string{cfg.AppsOrigin}, own...), MaxResult: cfg.MaxResultBytes})
	if err != nil {
		return err
	}
	s.sandbox, s.apps = sandbox, room
	room.HandleOps(dashOps)
	return nil
}

// routes mounts every route of the relay: health, the dashboard's socket
// and login, the agent endpoints and their authorization server, the
// servers' OAuth callbacks, and the dashboard's pages.
func (s *Service) routes(verifier *authn.Verifier, origins *authn.OriginPolicy, httpClient *http.Client, dashOps *ops.Mux) (*http.ServeMux, error) {
	cfg := s.cfg
	embedOrigins, err := authn.EmbedOrigins(cfg.EmbedOrigins)
	if err != nil {
		return nil, err
	}
	dash, err := dashboard.New(dashboard.Config{EmbedOrigins: embedOrigins, State: s.pageState(verifier), AppsOrigin: cfg.AppsOrigin})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("/ws", s.hub)
	mux.Handle("GET "+authn.LoginPath, s.login)
	mux.HandleFunc("POST "+authn.LogoutPath, s.logout(verifier, origins))
	if s.signin != nil {
		s.signin.Handle(mux)
	}
	s.initAgents(mux, dashOps, verifier, origins, httpClient)
	if err := routeOAuth(mux, s.oauth, verifier, cfg.OAuthClientMetadataURL); err != nil {
		return nil, err
	}
	routeEmbedOAuth(mux, s.oauth, verifier, origins)
	mux.Handle("/", dash)
	return mux, nil
}

// Models are the configured models, for the chat.
func (s *Service) Models() *models.Registry { return s.models }

// AppsHandler returns the handler of the Apps origin (Config.AppsOrigin):
// the MCP Apps sandbox proxy, to serve on its own listener or host; nil
// when Apps are off.
func (s *Service) AppsHandler() http.Handler { return s.sandbox }

// Handler serves every route of the relay.
func (s *Service) Handler() http.Handler { return s.handler }

// Owns says whether this relay serves user's live state now: always for a
// relay that is not a replica, else when it owns the user.
func (s *Service) Owns(user string) bool { return s.router == nil || s.router.Owns(user) }

// InternalHandler serves, at Config.ReplicaAddr, the requests the other
// replicas forward, and refuses any other; nil unless the relay is a replica.
func (s *Service) InternalHandler() http.Handler { return s.internal }

// LoginURL mints a one-time login code for the local user and returns the
// URL that spends it, relative to base (the relay's address as a person
// opens it, for example http://127.0.0.1:8080).
func (s *Service) LoginURL(ctx context.Context, base string) (string, error) {
	return NewLoginURL(ctx, s.login, s.cfg.LocalUser, base)
}

// NewLoginURL mints a one-time login code for user and returns its URL under base.
func NewLoginURL(ctx context.Context, login *authn.Login, user, base string) (string, error) {
	code, err := login.NewCode(ctx, user, LoginCodeTTL)
	if err != nil {
		return "", fmt.Errorf("new login code: %w", err)
	}
	return base + authn.LoginPath + "?code=" + url.QueryEscape(code), nil
}

// Mint returns a token for sub signed with the relay's key.
func (s *Service) Mint(sub string, ttl time.Duration) (string, error) { return s.signer.Mint(sub, ttl) }

// Close disconnects every dashboard, closes every connection and the store.
// Calls after the first return the first one's result.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		s.stopWatch()
		s.stopCatalog()
		if s.hub != nil {
			s.hub.Close()
		}
		if s.agents.mcp != nil {
			s.agents.mcp.Close()
		}
		if s.chat != nil { // before the sessions: its turns record that they were interrupted
			s.chat.Close()
		}
		if s.apps != nil {
			s.apps.Close()
		}
		if s.sessions != nil {
			s.sessions.Close()
		}
		if s.router != nil { // after the sessions: its users' locks end with it
			s.router.Close()
		}
		if s.demoStop != nil {
			s.demoStop()
		}
		s.flushLog()
		s.closeErr = s.store.Close()
	})
	return s.closeErr
}

func (s *Service) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]string{"status": "ok", "version": buildinfo.Version()})
}
