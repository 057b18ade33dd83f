package session

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/catalog"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/ops"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Store is the persistence sessions need; *store.Store satisfies it.
type Store interface {
	AddServer(ctx context.Context, s store.Server) error
	PutServer(ctx context.Context, s store.Server) error // adds or replaces
	UpdateServer(ctx context.Context, s store.Server, forgetAuth bool) error
	SetServerDisconnected(ctx context.Context, user, id string, disconnected bool) error
	DeleteServer(ctx context.Context, user, id string) error
	AllServers(ctx context.Context) ([]store.Server, error)
	Servers(ctx context.Context, user string) ([]store.Server, error)
	AskModes(ctx context.Context, user, id string) (string, error)
	SetAskModes(ctx context.Context, user, id, modes string) error
	ServerMarksSince(ctx context.Context, seq int64) ([]store.ServerMark, error)
	RootsStore
	SubscriptionStore
	PutCallTask(ctx context.Context, t store.CallTask) error
	DeleteCallTask(ctx context.Context, user, call string) error
	CallTasks(ctx context.Context, user, server string) ([]store.CallTask, error)
}

// Connection is one live MCP connection, as the session uses it: a
// [*conn.Conn] in the relay. Its operations speak the go-sdk's MCP types
// and fail with [*conn.Error]s; the session converts both for a dashboard
// (relay/mcpwire).
type Connection interface {
	CallTool(ctx context.Context, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
	// TaskMode says whether a tool must be called as an MCP task.
	TaskMode(tool string) (task bool, err error)
	CallToolTask(ctx context.Context, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams), created, status func(conn.Task)) (*mcp.CallToolResult, error)
	WatchTask(ctx context.Context, taskID string, status func(conn.Task)) (*mcp.CallToolResult, error)
	CancelTask(ctx context.Context, taskID string) error
	GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error)
	ReadResource(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)
	ResourceConnection
	Ping(ctx context.Context) (time.Duration, error)
	Retry()
	Close() error
	SetRoots(roots []wire.Root)
	SetLogLevel(ctx context.Context, level wire.LogLevel) error

	// What agents use of a connection besides calls (relay/gateway): the
	// resource subscriptions they hold beside the person's, the log levels
	// they ask for, and listeners of the server's updates and log messages.
	HoldSubscription(ctx context.Context, uri string) error
	ReleaseSubscription(ctx context.Context, uri string) error
	SetAgentLogLevel(ctx context.Context, holder any, level wire.LogLevel) error
	ReleaseAgentLogLevel(ctx context.Context, holder any) error
	OnResourceUpdated(fn func(uri string)) (stop func())
	OnLog(fn func(*mcp.LoggingMessageParams)) (stop func())
}

// Manager holds the sessions of all users.
type Manager struct {
	store  Store
	dial   Dialer
	logger *slog.Logger

	auth Auth // OAuth of the servers; nil without

	configured []ConfiguredServer // the operator's servers, in every session

	catalogMu sync.RWMutex
	catalog   catalog.Catalog // the operator's catalog, offered to every user; under catalogMu

	ops *ops.Mux // routes the dashboards' ops

	icons     *http.Client  // Config.Icons
	activity  ActivityLog   // Config.Activity
	asks      broker.Config // tunes each session's broker
	drafter   Drafter       // writes sampling answers; nil without a model
	maxResult int           // Config.MaxResult
	chats     ChatLoader    // Config.Chats

	onDemand bool // Config.OnDemand

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool

	syncMu sync.Mutex // one Sync at a time
	synced int64      // the store's latest server mark Sync applied; under syncMu
}

// Config is what a [Manager] is built from.
type Config struct {
	Store Store  // persists registrations and everything of a server
	Dial  Dialer // opens connections
	// Logger defaults to slog.Default.
	Logger *slog.Logger
	// Ops routes the ops of the users' dashboards: the manager registers
	// the ops of the rooms it holds (servers, calls, asks, roots, logs,
	// resources) on it, and the rooms outside it (agent keys, grants,
	// activity) register theirs. Nil: a mux of the manager's ops only.
	Ops *ops.Mux
	// Auth answers the OAuth ops and forgets a removed server's
	// authorization; nil for a relay without OAuth.
	Auth Auth
	// Asks tunes each session's broker.
	Asks broker.Config
	// Drafter writes sampling answers; nil without a model.
	Drafter Drafter
	// Activity keeps the agents' calls; nil keeps none (they are still
	// shown while they live in the state).
	Activity ActivityLog
	// Icons fetches the https icons servers list, to inline them: the
	// relay's guarded client, without any server's credentials. Without one
	// such icons are not shown.
	Icons *http.Client
	// Configured are the operator's servers that every session has.
	Configured []ConfiguredServer
	// Catalog is the operator's catalog at start; [Manager.SetCatalog]
	// replaces it.
	Catalog catalog.Catalog
	// MaxResult is the largest op result, in bytes of JSON, sent to a
	// dashboard; a larger one is answered with [wire.CodeTooLarge]. Zero
	// means [wire.MaxResultBytes]. The connections have the same limit
	// (conn.Config.MaxResultBytes), so this one catches only what the relay adds.
	MaxResult int
	// Chats reads a user's conversations when their session starts; nil
	// for a relay without the chat.
	Chats ChatLoader
	// OnDemand starts a user's session only at [Manager.Own], from the
	// store, and makes Restore restore nobody: the manager of a replica,
	// which serves only the users it owns. Without it every session starts
	// at its first use, and Restore starts every user's.
	OnDemand bool
}

// NewManager returns a manager built from cfg, its ops registered on cfg.Ops.
func NewManager(cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = wire.MaxResultBytes
	}
	if cfg.Ops == nil {
		cfg.Ops = ops.NewMux()
	}
	m := &Manager{store: cfg.Store, dial: cfg.Dial, logger: cfg.Logger, auth: cfg.Auth, icons: cfg.Icons, activity: cfg.Activity, asks: cfg.Asks, drafter: cfg.Drafter,
		configured: cfg.Configured, catalog: cfg.Catalog, maxResult: cfg.MaxResult, chats: cfg.Chats, ops: cfg.Ops, sessions: map[string]*Session{}, onDemand: cfg.OnDemand}
	for _, handle := range []func(*ops.Mux){m.handleServerOps, m.handleAuthOps, m.handleAskModeOps, m.handleCallOps,
		m.handleAskOps, m.handleRootsOps, m.handleJournalOps, m.handleResourceOps} {
		handle(cfg.Ops)
	}
	return m
}

// Session returns the session of user, creating it on first use.
func (m *Manager) Session(user string) *Session {
	m.mu.Lock()
	s, ok := m.sessions[user]
	if !ok {
		s = newSession(user, m)
		s.closed = m.closed // after Close, a new session refuses dashboards and servers
		m.sessions[user] = s
	}
	m.mu.Unlock()
	if !ok && !m.onDemand {
		s.startConfigured() // outside m.mu: the dialer asks the manager
	}
	return s
}

// Restore reconnects every registered server of every user. Call it once at start.
func (m *Manager) Restore(ctx context.Context) error {
	if m.onDemand {
		return nil // each user starts when Own takes them
	}
	regs, err := m.store.AllServers(ctx)
	if err != nil {
		return fmt.Errorf("restore registrations: %w", err)
	}
	for _, reg := range regs {
		m.Session(reg.User).restore(reg)
	}
	m.logger.Info("registrations restored", "servers", len(regs))
	return nil
}

// Close closes every connection and disconnects every dashboard.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	sessions := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		sessions = append(sessions, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(s.close)
	}
	wg.Wait()
}
