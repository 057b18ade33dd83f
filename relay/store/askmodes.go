package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// AskModes returns the ask modes stored for the user's server id (the
// session's JSON); empty when none were chosen.
func (s *Store) AskModes(ctx context.Context, user, id string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT ask_modes FROM server_client_prefs WHERE user_id = ? AND server_id = ?`, user, id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read ask modes of %s: %w", id, err)
	}
	return v, nil
}

// SetAskModes stores the ask modes of server id, which must be registered
// (else ErrNotFound). Removing the server forgets them.
func (s *Store) SetAskModes(ctx context.Context, user, id, modes string) error {
	const upsert = `INSERT INTO server_client_prefs (user_id, server_id, ask_modes)
		SELECT user_id, server_id, ? FROM servers WHERE user_id = ? AND server_id = ?
		ON CONFLICT (user_id, server_id) DO UPDATE SET ask_modes = excluded.ask_modes`
	res, err := s.exec(ctx, upsert, modes, user, id)
	if err != nil {
		return fmt.Errorf("write ask modes of %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("write ask modes of %s: %w", id, ErrNotFound)
	}
	return nil
}
