package store

import (
	"context"
	"fmt"
	"time"
)

// AddSubscription remembers that the user's server has a subscription to
// the resource at uri. Adding one that exists does nothing; a server that
// does not exist is an error.
func (s *Store) AddSubscription(ctx context.Context, user, server, uri string) error {
	const insert = `INSERT INTO resource_subscriptions (user_id, server_id, uri, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (user_id, server_id, uri) DO NOTHING`
	if _, err := s.exec(ctx, insert, user, server, uri, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("add subscription of %s: %w", server, err)
	}
	return nil
}

// RemoveSubscription forgets a subscription; forgetting one that does not
// exist does nothing.
func (s *Store) RemoveSubscription(ctx context.Context, user, server, uri string) error {
	const del = `DELETE FROM resource_subscriptions WHERE user_id = ? AND server_id = ? AND uri = ?`
	if _, err := s.exec(ctx, del, user, server, uri); err != nil {
		return fmt.Errorf("remove subscription of %s: %w", server, err)
	}
	return nil
}

// Subscriptions lists the URIs the user's server is subscribed to, in the
// order they were subscribed.
func (s *Store) Subscriptions(ctx context.Context, user, server string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT uri FROM resource_subscriptions
		WHERE user_id = ? AND server_id = ? ORDER BY created_at, rowid`, user, server)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions of %s: %w", server, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var uri string
		if err := rows.Scan(&uri); err != nil {
			return nil, fmt.Errorf("scan subscription: %w", err)
		}
		out = append(out, uri)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	return out, nil
}
