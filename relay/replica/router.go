package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// Users starts and ends users' sessions on the replica.
type Users interface {
	// Own starts user's session when the replica takes user.
	Own(ctx context.Context, user string) error
	// Release ends it when the replica lets user go.
	Release(user string)
	// Busy says whether user's work runs with no request open (a chat
	// turn): such a user is not idle.
	Busy(user string) bool
}

// Defaults of [Config].
const (
	DefaultIdleAfter = 15 * time.Minute
	checkEvery       = time.Second // how often the locks' connection is checked
	// checkTimeout bounds one check. It is long: a check that times out
	// ends the connection, and with it every lock, so it must mean that
	// PostgreSQL is gone, not busy.
	checkTimeout = 10 * time.Second
	claimWait    = 3 * time.Second // how long Route waits for an owner to show
	claimRetry   = 50 * time.Millisecond
)

// Config is what a [Router] is built from.
type Config struct {
	Store *store.Store
	// Addr is this replica's internal address (host:port), where the other
	// replicas forward to.
	Addr  string
	Users Users
	// Proofs mints and checks the proofs forwarded requests carry.
	Proofs *Proofs
	Logger *slog.Logger
	// IdleAfter is how long a user nobody uses stays owned; zero means
	// DefaultIdleAfter.
	IdleAfter time.Duration
}

// Router decides where each user is served and forwards to the owner.
type Router struct {
	cfg Config

	claimMu sync.Mutex // one claim or release at a time; before mu
	locks   *store.Ownership

	mu    sync.Mutex
	users map[string]*held // the users this replica owns
	lost  error            // why the locks are gone, until they are back

	stop context.CancelFunc
	done sync.WaitGroup
}

// held is an owned user: how many requests and sockets use them now, and
// when the last ended.
type held struct {
	uses int
	last time.Time
}

// Start opens the replica's locks and starts checking them and letting
// idle users go.
func Start(ctx context.Context, cfg Config) (*Router, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = DefaultIdleAfter
	}
	locks, err := cfg.Store.OpenOwnership(ctx, cfg.Addr)
	if err != nil {
		return nil, err
	}
	r := &Router{cfg: cfg, locks: locks, users: map[string]*held{}}
	wctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	r.done.Go(func() { r.watch(wctx) })
	return r, nil
}

// Route is where a request for a user is served.
type Route struct {
	// Owner is the owner's internal address; empty when this replica is
	// the owner, and then Done must be called when the request ends.
	Owner string
	done  func()
}

// Local says whether this replica serves the user.
func (rt Route) Local() bool { return rt.Owner == "" }

// Done ends a local request's use of its user.
func (rt Route) Done() {
	if rt.done != nil {
		rt.done()
	}
}

// ErrNoOwner is returned when no replica could be made the owner of a user
// in time.
var ErrNoOwner = errors.New("replica: no replica owns this user now; try again")

// Route says where user is served, taking the user when nobody owns them.
func (r *Router) Route(ctx context.Context, user string) (Route, error) {
	deadline := time.Now().Add(claimWait)
	for {
		if rt, ok := r.use(user); ok {
			return rt, nil
		}
		owner, mine, err := r.claim(ctx, user)
		if err != nil {
			return Route{}, err
		}
		if owner != "" {
			return Route{Owner: owner}, nil
		}
		if mine {
			continue // now use counts the request
		}
		// Nobody held the user, yet this replica could not take them: the
		// owner let go between the two questions. Ask again.
		if time.Now().After(deadline) {
			return Route{}, ErrNoOwner
		}
		select {
		case <-ctx.Done():
			return Route{}, ctx.Err()
		case <-time.After(claimRetry):
		}
	}
}

// use counts a request of an owned user and returns its route.
func (r *Router) use(user string) (Route, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.users[user]
	if !ok {
		return Route{}, false
	}
	h.uses++
	var once sync.Once
	return Route{done: func() { once.Do(func() { r.unuse(user) }) }}, true
}

func (r *Router) unuse(user string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.users[user]; ok {
		h.uses--
		h.last = time.Now()
	}
}

// claim takes user if nobody holds them and starts their session (mine),
// or returns the owner's address; neither when nobody held the user but
// this replica could not take them (the owner let go in between).
func (r *Router) claim(ctx context.Context, user string) (owner string, mine bool, err error) {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	r.mu.Lock()
	_, mine = r.users[user]
	lost := r.lost
	r.mu.Unlock()
	if mine {
		return "", true, nil // taken while this request waited for claimMu
	}
	if lost != nil {
		return "", false, fmt.Errorf("replica: cannot take users now: %w", lost)
	}
	got, err := r.locks.TryOwn(ctx, user)
	if err != nil {
		return "", false, err
	}
	if !got {
		owner, _, err := r.locks.OwnerOf(ctx, user)
		if owner == r.cfg.Addr {
			return "", false, fmt.Errorf("replica: %s is held by another replica at this replica's address %s", user, owner)
		}
		return owner, false, err
	}
	if err := r.cfg.Users.Own(ctx, user); err != nil {
		r.cfg.Users.Release(user)
		r.locks.Release(context.WithoutCancel(ctx), user)
		return "", false, fmt.Errorf("replica: start %s: %w", user, err)
	}
	r.mu.Lock()
	r.users[user] = &held{last: time.Now()}
	r.mu.Unlock()
	r.cfg.Logger.Info("replica owns user", "user", user, "replica", r.cfg.Addr)
	return "", true, nil
}

// watch checks the locks' connection and lets idle users go until ctx ends.
func (r *Router) watch(ctx context.Context) {
	t := time.NewTicker(min(checkEvery, r.cfg.IdleAfter/2))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.check(ctx)
		r.letIdleGo(ctx)
	}
}

// check makes sure the locks are held. When their connection is gone, so
// are the locks and with them the right to serve any user: every session
// ends (its dashboards reconnect, and reach the new owner) and the locks'
// connection is opened anew.
func (r *Router) check(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, checkTimeout)
	err := r.locks.Ping(pctx)
	cancel()
	if err == nil {
		return
	}
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	r.mu.Lock()
	users := r.users
	r.users = map[string]*held{}
	r.lost = err
	r.mu.Unlock()
	r.cfg.Logger.Error("replica lost its locks: letting its users go", "users", len(users), "err", err)
	for user := range users {
		r.cfg.Users.Release(user)
	}
	r.locks.Close()
	locks, err := r.cfg.Store.OpenOwnership(ctx, r.cfg.Addr)
	if err != nil {
		r.cfg.Logger.Error("replica cannot take users until it reaches PostgreSQL", "err", err)
		return
	}
	r.locks = locks
	r.mu.Lock()
	r.lost = nil
	r.mu.Unlock()
}

// letIdleGo releases the users nobody has used for IdleAfter.
func (r *Router) letIdleGo(ctx context.Context) {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	r.mu.Lock()
	var idle []string
	for user, h := range r.users {
		if h.uses == 0 && time.Since(h.last) >= r.cfg.IdleAfter && !r.cfg.Users.Busy(user) {
			idle = append(idle, user)
			delete(r.users, user)
		}
	}
	r.mu.Unlock()
	for _, user := range idle {
		r.cfg.Users.Release(user)
		if err := r.locks.Release(ctx, user); err != nil {
			r.cfg.Logger.Error("release idle user", "user", user, "err", err)
		}
		r.cfg.Logger.Info("replica let an idle user go", "user", user)
	}
}

// Close lets every user go and ends the locks.
func (r *Router) Close() error {
	r.stop()
	r.done.Wait()
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	return r.locks.Close()
}

// Owns says whether this replica owns user now.
func (r *Router) Owns(user string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.users[user]
	return ok
}
