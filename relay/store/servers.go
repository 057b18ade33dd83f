package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Server is one MCP server a user registered with the relay.
type Server struct {
	User      string
	ID        string
	Name      string
	URL       string
	Transport string
	CreatedAt time.Time
}

// PutServer stores srv. Putting an (User, ID) pair that exists replaces its
// name, URL and transport but keeps its creation time and place in the list.
// A zero CreatedAt means now. It returns ErrNameTaken when the user has
// another server with the same name.
func (s *Store) PutServer(ctx context.Context, srv Server) error {
	if srv.User == "" || srv.ID == "" || srv.Name == "" {
		return fmt.Errorf("put server: user, id and name are required")
	}
	created := srv.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	const upsert = `INSERT INTO servers (user_id, server_id, name, url, transport, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, server_id) DO UPDATE SET
			name = excluded.name, url = excluded.url, transport = excluded.transport`
	_, err := s.db.ExecContext(ctx, upsert, srv.User, srv.ID, srv.Name, srv.URL, srv.Transport, created.UnixMilli())
	if isUniqueViolation(err) {
		return fmt.Errorf("put server %s: %w", srv.ID, ErrNameTaken)
	}
	if err != nil {
		return fmt.Errorf("put server %s: %w", srv.ID, err)
	}
	return nil
}

// DeleteServer removes the user's server id, or returns ErrNotFound.
func (s *Store) DeleteServer(ctx context.Context, user, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM servers WHERE user_id = ? AND server_id = ?`, user, id)
	if err != nil {
		return fmt.Errorf("delete server %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("delete server %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("delete server %s: %w", id, ErrNotFound)
	}
	return nil
}

// serverColumns is the column list scanServers expects.
const serverColumns = `user_id, server_id, name, url, transport, created_at`

// Servers lists the user's servers in the order they were created.
func (s *Store) Servers(ctx context.Context, user string) ([]Server, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+serverColumns+` FROM servers
		WHERE user_id = ? ORDER BY created_at, rowid`, user)
	if err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	return scanServers(rows)
}

// AllServers lists every user's servers in the order they were created, for
// reconnecting everything when the relay starts.
func (s *Store) AllServers(ctx context.Context) ([]Server, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+serverColumns+` FROM servers
		ORDER BY created_at, rowid`)
	if err != nil {
		return nil, fmt.Errorf("list all servers: %w", err)
	}
	return scanServers(rows)
}

// scanServers reads and closes rows selected with serverColumns.
func scanServers(rows *sql.Rows) ([]Server, error) {
	defer rows.Close()
	var out []Server
	for rows.Next() {
		var srv Server
		var created int64
		if err := rows.Scan(&srv.User, &srv.ID, &srv.Name, &srv.URL, &srv.Transport, &created); err != nil {
			return nil, fmt.Errorf("scan server: %w", err)
		}
		srv.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, srv)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read servers: %w", err)
	}
	return out, nil
}
