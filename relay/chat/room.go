package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Store is the persistence of conversations; *store.Store satisfies it.
type Store interface {
	AddChats(ctx context.Context, user string, cs []wire.Chat) error
	PutChat(ctx context.Context, user string, c wire.Chat) error
	DeleteChat(ctx context.Context, user, id string) error
	Chat(ctx context.Context, user, id string) (wire.Chat, error)
	Chats(ctx context.Context, user string) ([]wire.Chat, error)
	PutTurn(ctx context.Context, user string, t wire.ChatTurn) error
	Turns(ctx context.Context, user, chat string) ([]wire.ChatTurn, error)
	DeleteTurnsFrom(ctx context.Context, user, chat string, n int) error
	SearchChats(ctx context.Context, user, query string) ([]string, error)
	InterruptTurns(ctx context.Context) (int64, error)
	InterruptTurnsOf(ctx context.Context, user string) (int64, error)
	ToolPolicies(ctx context.Context, user string) ([]wire.ToolPolicyEntry, error)
	SetToolPolicy(ctx context.Context, user string, e wire.ToolPolicyEntry) error
}

// Models are the configured models; relay/models' *Registry satisfies it.
type Models interface {
	// Model is the model name for user, with the person's own key when
	// they set one.
	Model(ctx context.Context, user, name string) (llm.Model, error)
	// Default names the first configured model; "" when there is none.
	Default() string
	// Images says whether the model takes images.
	Images(name string) bool
}

// Config is what a [Room] is built from.
type Config struct {
	Sessions *session.Manager
	Store    Store
	Models   Models
	Logger   *slog.Logger // nil: slog.Default
	// MaxSteps bounds the model requests of one turn; 0 means
	// wire.DefaultChatSteps.
	MaxSteps int
	// ServerWait bounds how long a turn waits for its servers to connect
	// before its first model request; 0 means DefaultServerWait.
	ServerWait time.Duration
}

// Defaults and limits of the room.
const (
	DefaultServerWait = 10 * time.Second
	// maxRunningTurns bounds the turns running at once for one user.
	maxRunningTurns = 8
	// storeTimeout bounds one store write of a turn, which must land even
	// when the turn was stopped.
	storeTimeout = 5 * time.Second
	// closeTimeout bounds how long Close waits for the turns to record
	// that they were interrupted.
	closeTimeout = 10 * time.Second
)

// errShutdown ends the turns of a stopping relay: they are interrupted.
var errShutdown = errors.New("the relay stopped during this turn")

// errLetGo ends the turns of a person this replica lets go (it lost its
// hold on them): they are interrupted.
var errLetGo = errors.New("the relay restarted this person's session during this turn")

// Room runs the users' conversations.
type Room struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	running map[convKey]*run // the turns running now
	closed  bool
	// loops counts the turns' loops, which Close waits for; one is added
	// with each turn claimed.
	loops sync.WaitGroup
	// edit serializes the read-modify-write of conversations' summaries.
	edit sync.Mutex
}

// convKey names one conversation of one user.
type convKey struct{ user, chat string }

// New returns a room built from cfg.
func New(cfg Config) *Room {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = wire.DefaultChatSteps
	}
	if cfg.ServerWait <= 0 {
		cfg.ServerWait = DefaultServerWait
	}
	return &Room{cfg: cfg, log: cfg.Logger, running: map[convKey]*run{}}
}

// Start marks the turns a previous run of the relay left running as
// interrupted. A relay that runs alone calls it once, before the dashboards
// connect; replicas, which share the store, call TakeOver for each person
// they take instead.
func (r *Room) Start(ctx context.Context) error {
	n, err := r.cfg.Store.InterruptTurns(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		r.log.Info("chat turns interrupted by the last stop", "turns", n)
	}
	return nil
}

// TakeOver marks user's turns that still run in the store as interrupted:
// a replica that has just taken user runs none of them, so they ran on the
// replica that had user before and will not end otherwise.
func (r *Room) TakeOver(ctx context.Context, user string) error {
	n, err := r.cfg.Store.InterruptTurnsOf(ctx, user)
	if err != nil {
		return fmt.Errorf("interrupt %s's turns: %w", user, err)
	}
	if n > 0 {
		r.log.Info("chat turns interrupted by the loss of their replica", "user", user, "turns", n)
	}
	return nil
}

// LetGo stops user's running turns, which record themselves interrupted:
// a replica that lets user go may no longer run them.
func (r *Room) LetGo(user string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, rn := range r.running {
		if k.user == user {
			rn.cancel(errLetGo)
		}
	}
}

// Busy says whether a turn of user runs here.
func (r *Room) Busy(user string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.running {
		if k.user == user {
			return true
		}
	}
	return false
}

// Load reads the summaries of user's conversations, for the session's
// state (session.Config.Chats).
func (r *Room) Load(ctx context.Context, user string) ([]wire.Chat, error) {
	return r.cfg.Store.Chats(ctx, user)
}

// Close stops every running turn, which records itself interrupted, and
// waits for the turns' loops to end.
func (r *Room) Close() {
	r.mu.Lock()
	r.closed = true
	for _, rn := range r.running {
		rn.cancel(errShutdown)
	}
	r.mu.Unlock()
	ended := make(chan struct{})
	go func() {
		r.loops.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(closeTimeout):
	}
}

// session is user's session.
func (r *Room) session(user string) *session.Session { return r.cfg.Sessions.Session(user) }

// runOf returns the running turn of a conversation, or nil.
func (r *Room) runOf(user, chat string) *run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[convKey{user, chat}]
}

// storeCtx is a context for one store write of a turn.
func storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), storeTimeout)
}
