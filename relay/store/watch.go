package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Watch calls changed whenever the database changed since the last look,
// checking every interval, until ctx ends. Changes made through this Store
// count too, as do those of other processes (the CLI, other relays)
// writing the same database.
//
// On SQLite it holds one connection for its life and reads PRAGMA
// data_version, which SQLite bumps when another connection commits. On
// PostgreSQL it listens on a connection of its own to the notifications
// every table's trigger sends, and calls changed at most once an interval;
// it calls changed once it listens, since what was written while it made
// its connection was told to nobody, and a lost connection is made again,
// every interval until it is, and changed is called then, since changes
// may have been missed meanwhile.
func (s *Store) Watch(ctx context.Context, interval time.Duration, changed func()) error {
	if s.pg != nil {
		return s.watchPostgres(ctx, interval, changed)
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("watch store: %w", err)
	}
	defer c.Close()
	var last int64
	if err := c.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&last); err != nil {
		return fmt.Errorf("watch store: %w", err)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		var v int64
		if err := c.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("watch store: %w", err)
		}
		if v != last {
			last = v
			changed()
		}
	}
}

// pgChannel is the SQL of the channel the store's triggers notify: one per
// schema, as the trigger function switchboard_notify names it.
const pgChannel = `SELECT left('switchboard_' || current_schema(), 63)`

// watchPostgres is Watch on PostgreSQL. A goroutine waits for
// notifications and flags them in heard; the loop calls changed for what
// was flagged, no sooner than interval after its last call.
func (s *Store) watchPostgres(ctx context.Context, interval time.Duration, changed func()) error {
	conn, err := s.listen(ctx)
	if err != nil {
		return fmt.Errorf("watch store: %w", err)
	}
	heard := make(chan struct{}, 1)
	flag := func() {
		select {
		case heard <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	flag() // for what was written before conn listened
	wg.Go(func() { s.receive(ctx, conn, interval, flag) })
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-heard:
		}
		if wait := time.Until(last.Add(interval)); wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
		select { // what came during the wait is seen by this call
		case <-heard:
		default:
		}
		changed()
		last = time.Now()
	}
}

// receive calls flag for every notification on conn until ctx ends, then
// closes conn. When conn is lost it listens again and flags once it does.
func (s *Store) receive(ctx context.Context, conn *pgconn.PgConn, interval time.Duration, flag func()) {
	for {
		if err := conn.WaitForNotification(ctx); err == nil {
			flag()
			continue
		}
		conn.Close(context.Background())
		if conn = s.relisten(ctx, interval); conn == nil {
			return
		}
		flag()
	}
}

// relisten listens on a new connection, trying every interval, until it
// does or ctx ends (nil).
func (s *Store) relisten(ctx context.Context, interval time.Duration) *pgconn.PgConn {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
		if conn, err := s.listen(ctx); err == nil {
			return conn
		}
	}
}

// listen opens a connection of its own to the store's database and
// listens on its channel.
func (s *Store) listen(ctx context.Context) (*pgconn.PgConn, error) {
	conn, err := pgconn.ConnectConfig(ctx, s.pg.Config.Copy())
	if err != nil {
		return nil, err
	}
	res, err := conn.Exec(ctx, pgChannel).ReadAll()
	if err == nil && (len(res) != 1 || len(res[0].Rows) != 1) {
		err = fmt.Errorf("no channel for the schema")
	}
	if err == nil {
		channel := string(res[0].Rows[0][0])
		_, err = conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()).ReadAll()
	}
	if err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("listen: %w", err)
	}
	return conn, nil
}
