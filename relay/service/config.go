package service

import (
	"log/slog"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/signin"
)

// Config is everything the relay can be told.
type Config struct {
	// DataDir holds the relay's signing key, the seal key (without
	// $SWITCHBOARD_SEAL_KEY) and, unless Store is set, the SQLite database.
	DataDir string
	// Store is the PostgreSQL database of the relay, a postgres:// or
	// postgresql:// URL; empty keeps the store in SQLite in DataDir.
	Store string
	// ReplicaAddr, when set, makes the relay a replica of several on one
	// PostgreSQL Store (relay/replica): the internal address (host:port)
	// at which it serves [Service.InternalHandler], where the other
	// replicas forward requests for the users it owns. Every replica must
	// reach it; nothing else should.
	ReplicaAddr string
	// ReplicaIdle is how long a replica keeps a user nobody uses; zero
	// picks replica.DefaultIdleAfter.
	ReplicaIdle    time.Duration
	Demo           bool     // also run the demo MCP server and register it for LocalUser
	DemoUsers      []string // with Demo, also register the demo server for these users
	AllowedOrigins []string // origins besides the relay's own that may open the WebSocket
	AllowedHosts   []string // Host names the relay answers to besides loopback ones
	Issuer         string   // iss of tokens the relay mints
	Audience       string   // aud every token must carry
	HostKeysFile   string   // PEM or JWKS public keys of an embedding site; empty for none
	HostIssuer     string   // iss of tokens minted by the embedding site
	// EmbedOrigins are the sites (scheme://host[:port]) that may frame the
	// embedded dashboard; none means embedding is off. Their pages talk to
	// the frame, not to the relay: the frame's WebSocket has the relay's own
	// origin.
	EmbedOrigins  []string
	SessionTTL    time.Duration
	LocalUser     string // the user a local login signs in as
	AllowLoopback bool   // let the relay reach MCP servers on loopback addresses
	// StdioConfigFile is the operator's file of stdio servers (mcpServers
	// layout: command, args, env, cwd); every user gets a process of each.
	// Empty for none.
	StdioConfigFile string
	// CatalogFile is the operator's catalog (relay/catalog): servers
	// offered to every user, watched for changes. Empty for none.
	CatalogFile string
	// CatalogInterval is how often the relay looks at CatalogFile; zero
	// picks catalog.DefaultWatchInterval.
	CatalogInterval time.Duration

	// Connection tuning; zero values pick the connection defaults.
	HealthInterval time.Duration
	RetryMin       time.Duration
	RetryMax       time.Duration
	// CallTimeout bounds each operation on a server (conn.Config.CallTimeout);
	// zero picks conn.DefaultCallTimeout. MaxResultBytes caps one result, for
	// the dashboard and for agents; zero picks wire.MaxResultBytes.
	CallTimeout    time.Duration
	MaxResultBytes int
	// AskTimeout is how long a server's elicitation waits for a person
	// before the relay answers cancel (a sampling request: an error); zero
	// picks broker.DefaultTimeout.
	AskTimeout time.Duration
	// WatchInterval is how often the relay looks for changes the command
	// line (or another relay) made to the store; zero picks
	// DefaultWatchInterval.
	WatchInterval time.Duration

	// Models are the operator's named models (relay/models), the first
	// the default: the chat's, and the one that drafts sampling answers.
	// Their keys are secrets, never logged. With Demo, the scripted demo
	// model comes after them.
	Models []models.Spec
	// SamplingModel names the model that drafts sampling answers; empty
	// picks the first that is not the demo. Without one the relay only
	// asks people.
	SamplingModel string
	// ChatSteps bounds the model requests of one chat turn; zero picks
	// wire.DefaultChatSteps.
	ChatSteps int

	// PublicURL is the relay's address as people reach it; the OAuth
	// callback (oauth.CallbackPath) is under it. Without it servers that
	// need OAuth cannot be authorized.
	PublicURL string
	// SignIn, when set, signs people in with the team's OpenID Connect
	// provider (its callback under PublicURL), which is also the identity
	// provider of servers configured for cross-app access. Nil for none.
	SignIn *signin.Settings
	// AppsOrigin is the public origin (scheme://host[:port]) at which the
	// MCP Apps sandbox proxy, [Service.AppsHandler], is reached; it must
	// differ from the relay's own. "" means Apps are off: servers are not
	// told the relay renders views, and the dashboard shows results only.
	AppsOrigin string
	// OAuthClientMetadataURL, when set, is the https URL at which the relay
	// serves its OAuth client ID metadata document (it must route to this
	// relay), used as its client id where authorization servers allow.
	OAuthClientMetadataURL string
	// OAuthSuccessURL and OAuthErrorURL are where the callback sends the
	// popup; by default a page that closes it, or a plain error page.
	OAuthSuccessURL, OAuthErrorURL string
	// OAuthClients are clients pre-registered with authorization servers.
	OAuthClients []oauth.Credentials
	// AgentRate and AgentBurst are the token bucket of each agent key on
	// /mcp; zero picks gateway.DefaultRate and gateway.DefaultBurst.
	AgentRate  float64
	AgentBurst int

	Logger *slog.Logger
}

// Defaults of the configuration.
const (
	DefaultIssuer     = "switchboard"
	DefaultAudience   = "switchboard"
	DefaultSessionTTL = 12 * time.Hour
	DefaultLocalUser  = "local"
	LoginCodeTTL      = 15 * time.Minute
)

func (c *Config) fillDefaults() {
	if c.Issuer == "" {
		c.Issuer = DefaultIssuer
	}
	if c.Audience == "" {
		c.Audience = DefaultAudience
	}
	if c.SessionTTL == 0 {
		c.SessionTTL = DefaultSessionTTL
	}
	if c.LocalUser == "" {
		c.LocalUser = DefaultLocalUser
	}
	if c.WatchInterval == 0 {
		c.WatchInterval = DefaultWatchInterval
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}
