package store

import (
	"context"
	"fmt"
)

// ServerMark says that a user's servers changed (added, edited or removed,
// by any process): Seq grows with each change of anyone's servers.
type ServerMark struct {
	User string
	Seq  int64
}

// ServerMarksSince returns the users whose servers changed after mark seq,
// each with its latest mark, in the order of the marks. Reading from 0
// returns every user whose servers ever changed.
func (s *Store) ServerMarksSince(ctx context.Context, seq int64) ([]ServerMark, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT user_id, seq FROM server_marks WHERE seq > ? ORDER BY seq`, seq)
	if err != nil {
		return nil, fmt.Errorf("read server marks: %w", err)
	}
	defer rows.Close()
	var out []ServerMark
	for rows.Next() {
		var m ServerMark
		if err := rows.Scan(&m.User, &m.Seq); err != nil {
			return nil, fmt.Errorf("scan server mark: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read server marks: %w", err)
	}
	return out, nil
}
