package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Store is the persistence sessions need; *store.Store satisfies it.
type Store interface {
	PutServer(ctx context.Context, s store.Server) error
	DeleteServer(ctx context.Context, user, id string) error
	AllServers(ctx context.Context) ([]store.Server, error)
	Servers(ctx context.Context, user string) ([]store.Server, error)
	ServerMarksSince(ctx context.Context, seq int64) ([]store.ServerMark, error)
	Setting(ctx context.Context, key string) (value string, ok bool, err error)
	SetSetting(ctx context.Context, key, value string) error
	DeleteSetting(ctx context.Context, key string) error
	RootsStore
	SubscriptionStore
	PutCallTask(ctx context.Context, t store.CallTask) error
	DeleteCallTask(ctx context.Context, user, call string) error
	CallTasks(ctx context.Context, user, server string) ([]store.CallTask, error)
}

// Connection is one live MCP connection, as the session uses it.
type Connection interface {
	CallTool(ctx context.Context, name string, args json.RawMessage, progress func(wire.Progress)) (*wire.CallToolResult, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*wire.GetPromptResult, error)
	ReadResource(ctx context.Context, uri string) (*wire.ReadResourceResult, error)
	ResourceConnection
	Retry()
	Close() error
	SetRoots(roots []wire.Root)
	SetLogLevel(ctx context.Context, level string) error
}

// Dialer starts a connection to a registered server. It must return at once;
// the connection reports its state through emit, one call at a time.
type Dialer func(reg store.Server, emit func(wire.Server)) Connection

// Manager holds the sessions of all users.
type Manager struct {
	store  Store
	dial   Dialer
	logger *slog.Logger

	auth Auth // OAuth of the servers; nil without

	configured []ConfiguredServer // the operator's servers, in every session

	agents Agents // agent keys and activity; nil without
	grants Grants // OAuth grants and consent; nil without

	mu   sync.Mutex
	asks broker.Config // tunes each session's broker
	// maxResult caps an op's result for a dashboard; see SetResultLimit.
	maxResult int
	drafter   Drafter // writes sampling answers; nil without a model
	sessions  map[string]*Session
	closed    bool

	syncMu sync.Mutex // one Sync at a time
	synced int64      // the store's latest server mark Sync applied; under syncMu
}

// NewManager returns a manager that persists registrations in st and opens
// connections with dial.
func NewManager(st Store, dial Dialer, logger *slog.Logger) *Manager {
	if logger == nil {
		logger = slog.Default()
	}
	return &Manager{store: st, dial: dial, logger: logger, sessions: map[string]*Session{}}
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
	if !ok {
		s.startConfigured() // outside m.mu: the dialer asks the manager
	}
	return s
}

// Restore reconnects every registered server of every user. Call it once at start.
func (m *Manager) Restore(ctx context.Context) error {
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
