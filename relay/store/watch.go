package store

import (
	"context"
	"fmt"
	"time"
)

// Watch calls changed whenever the database changed since the last look,
// checking every interval, until ctx ends. Changes made through this Store
// count too, as do those of other processes (the CLI) writing the same
// file. It holds one connection for its life and reads PRAGMA data_version,
// which SQLite bumps when another connection commits.
func (s *Store) Watch(ctx context.Context, interval time.Duration, changed func()) error {
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
