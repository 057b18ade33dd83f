package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// ErrNotShared is returned by what only a store several relays share
// (PostgreSQL) can do.
var ErrNotShared = errors.New("the store is not shared: replicas need PostgreSQL")

// Shared says whether several relays can share the store as replicas
// (PostgreSQL; SQLite is one relay's).
func (s *Store) Shared() bool { return s.pg != nil }

// ownerApp prefixes the application_name of an ownership connection; the
// replica's address follows it.
const ownerApp = "switchboard-replica "

// Ownership is a replica's claim on users, held as PostgreSQL advisory
// locks on a connection of its own: a lock is held by one connection at a
// time, and ends the moment PostgreSQL sees that connection drop (the
// replica stopped, crashed or lost the network). Who holds a user's lock is
// read from PostgreSQL itself (pg_locks and the holder's application_name,
// which names its address), so no record of an owner can outlive it.
//
// Locks are per database and keyed by the store's schema and the user, so
// stores in other schemas of one database do not collide.
type Ownership struct {
	addr string

	mu   sync.Mutex // one statement at a time on conn
	conn *pgx.Conn
}

// OpenOwnership opens the ownership connection of the replica reached at
// addr (host:port, the address other replicas forward to).
func (s *Store) OpenOwnership(ctx context.Context, addr string) (*Ownership, error) {
	if s.pg == nil {
		return nil, ErrNotShared
	}
	if addr == "" || strings.ContainsAny(addr, " \x00") {
		return nil, fmt.Errorf("ownership: replica address %q is not host:port", addr)
	}
	cfg := s.pg.Copy()
	cfg.RuntimeParams["application_name"] = ownerApp + addr
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("ownership: connect: %w", err)
	}
	return &Ownership{addr: addr, conn: conn}, nil
}

// lockKey is the advisory lock key of user in the store's schema.
const lockKey = `hashtextextended(current_schema() || '/' || $1, 0)`

// TryOwn takes user's lock if nobody holds it, and says whether this
// replica holds it now (taking a lock it holds already counts it twice;
// callers take each user once).
func (o *Ownership) TryOwn(ctx context.Context, user string) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var got bool
	if err := o.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+lockKey+`)`, user).Scan(&got); err != nil {
		return false, fmt.Errorf("ownership: lock %s: %w", user, err)
	}
	return got, nil
}

// Release lets user go.
func (o *Ownership) Release(ctx context.Context, user string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.conn.Exec(ctx, `SELECT pg_advisory_unlock(`+lockKey+`)`, user); err != nil {
		return fmt.Errorf("ownership: unlock %s: %w", user, err)
	}
	return nil
}

// OwnerOf returns the address of the replica holding user's lock; found is
// false when nobody holds it.
func (o *Ownership) OwnerOf(ctx context.Context, user string) (addr string, found bool, err error) {
	const q = `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND ((l.classid::bigint << 32) | l.objid::bigint) = ` + lockKey
	o.mu.Lock()
	defer o.mu.Unlock()
	var app string
	err = o.conn.QueryRow(ctx, q, user).Scan(&app)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("ownership: owner of %s: %w", user, err)
	}
	addr, ok := strings.CutPrefix(app, ownerApp)
	if !ok {
		return "", false, fmt.Errorf("ownership: %s is locked by %q, not a replica", user, app)
	}
	return addr, true, nil
}

// Ping checks that the connection, and with it every lock, is alive.
func (o *Ownership) Ping(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.conn.Ping(ctx)
}

// Close drops the connection, which ends every lock this replica holds.
func (o *Ownership) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.conn.Close(context.Background())
}
