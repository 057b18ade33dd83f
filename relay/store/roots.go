package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Root is one of a person's roots.
type Root struct {
	URI, Name string
}

// ClientPrefs are what a person chose for one server's client features.
type ClientPrefs struct {
	RootsHidden bool   // the server sees an empty list of roots
	LogLevel    string // the log level asked of the server; empty for none
}

// Roots returns the user's roots in their order.
func (s *Store) Roots(ctx context.Context, user string) ([]Root, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT uri, name FROM user_roots WHERE user_id = ? ORDER BY position`, user)
	if err != nil {
		return nil, fmt.Errorf("read roots: %w", err)
	}
	defer rows.Close()
	var roots []Root
	for rows.Next() {
		var r Root
		if err := rows.Scan(&r.URI, &r.Name); err != nil {
			return nil, fmt.Errorf("read roots: %w", err)
		}
		roots = append(roots, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read roots: %w", err)
	}
	return roots, nil
}

// SetRoots replaces the user's roots, in one transaction.
func (s *Store) SetRoots(ctx context.Context, user string, roots []Root) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_roots WHERE user_id = ?`, user); err != nil {
			return fmt.Errorf("replace roots: %w", err)
		}
		for i, r := range roots {
			const insert = `INSERT INTO user_roots (user_id, position, uri, name) VALUES (?, ?, ?, ?)`
			if _, err := tx.ExecContext(ctx, insert, user, i, r.URI, r.Name); err != nil {
				return fmt.Errorf("replace roots: %w", err)
			}
		}
		return nil
	})
}

// ClientPrefs returns what the user chose for server id; the zero value
// when nothing was chosen.
func (s *Store) ClientPrefs(ctx context.Context, user, id string) (ClientPrefs, error) {
	var p ClientPrefs
	const query = `SELECT roots_hidden, log_level FROM server_client_prefs WHERE user_id = ? AND server_id = ?`
	err := s.db.QueryRowContext(ctx, query, user, id).Scan(&p.RootsHidden, &p.LogLevel)
	if errors.Is(err, sql.ErrNoRows) {
		return ClientPrefs{}, nil
	}
	if err != nil {
		return ClientPrefs{}, fmt.Errorf("read client prefs of %s: %w", id, err)
	}
	return p, nil
}

// SetClientPrefs stores what the user chose for server id, which must be
// registered (else ErrNotFound). Removing the server forgets them.
func (s *Store) SetClientPrefs(ctx context.Context, user, id string, p ClientPrefs) error {
	const upsert = `INSERT INTO server_client_prefs (user_id, server_id, roots_hidden, log_level)
		SELECT user_id, server_id, ?, ? FROM servers WHERE user_id = ? AND server_id = ?
		ON CONFLICT (user_id, server_id) DO UPDATE SET roots_hidden = excluded.roots_hidden, log_level = excluded.log_level`
	res, err := s.exec(ctx, upsert, p.RootsHidden, p.LogLevel, user, id)
	if err != nil {
		return fmt.Errorf("write client prefs of %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("write client prefs of %s: %w", id, ErrNotFound)
	}
	return nil
}
