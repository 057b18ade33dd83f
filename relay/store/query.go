package store

import (
	"context"
	"database/sql"
	"fmt"
)

// strings runs a query of one text column and returns its values, never
// nil; what names the query in errors.
func (s *Store) strings(ctx context.Context, what, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// exec runs a statement outside a transaction; a failure caused by the disk
// names it ([ErrDiskFull]).
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := s.db.ExecContext(ctx, query, args...)
	return res, named(err)
}
