package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// sealServerSecrets is the sealing context of a server's secrets.
const sealServerSecrets = "servers.secrets"

// Server is one MCP server a user registered with the relay. URL and the
// header values are plain in memory; at rest the url column holds
// DisplayURL and the secrets (URL and header values) are sealed.
type Server struct {
	User string
	ID   string
	Name string
	URL  string // the whole URL, secret query values included
	// DisplayURL is URL with its secret query values masked; empty when
	// URL has none (then it is URL).
	DisplayURL string
	// Transport is the text of a shared/wire Transport (the store keeps
	// its columns plain; the session converts).
	Transport string
	// Headers are sent upstream on every request; their values are secrets.
	Headers map[string]string
	// Disconnected is set while the person keeps the server disconnected.
	Disconnected bool
	Retry        Retry
	CreatedAt    time.Time
	// SecretsErr is set, when listed, if the sealed secrets could not be
	// opened (the seal key changed): URL is then DisplayURL and Headers
	// hold the names with empty values.
	SecretsErr error
}

// Retry is a server's reconnect policy; zero fields take the relay's defaults.
type Retry struct {
	Attempts    int // failed attempts in a row before giving up
	BaseDelayMS int // the first delay, doubled after each failure
	MaxDelayMS  int // the cap on the delay
}

// HeaderNames returns the names of srv's headers, sorted.
func (srv Server) HeaderNames() []string {
	names := make([]string, 0, len(srv.Headers))
	for n := range srv.Headers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// serverSecrets is the sealed part of a Server.
type serverSecrets struct {
	URL     string            `json:"u,omitempty"` // only when it differs from the display URL
	Headers map[string]string `json:"h,omitempty"`
}

// sealed returns the url column and the sealed secrets of srv (nil when it
// has none).
func (s *Store) sealed(srv Server) (string, []byte, error) {
	shown := srv.URL
	var sec serverSecrets
	if srv.DisplayURL != "" && srv.DisplayURL != srv.URL {
		shown, sec.URL = srv.DisplayURL, srv.URL
	}
	sec.Headers = srv.Headers
	if sec.URL == "" && len(sec.Headers) == 0 {
		return shown, nil, nil
	}
	plain, err := json.Marshal(sec)
	if err != nil {
		return "", nil, err
	}
	return shown, s.sealer.Seal(plain, sealContext(sealServerSecrets, srv.User, srv.ID, "")), nil
}

// PutServer stores srv. Putting an (User, ID) pair that exists replaces its
// settings but keeps its creation time and place in the list. A zero
// CreatedAt means now. It returns ErrNameTaken when the user has another
// server with the same name.
func (s *Store) PutServer(ctx context.Context, srv Server) error {
	return s.insertServer(ctx, srv, true)
}

// AddServer stores a new server. It returns ErrIDTaken when the user has a
// server with srv's id, ErrNameTaken when another has its name.
func (s *Store) AddServer(ctx context.Context, srv Server) error {
	return s.insertServer(ctx, srv, false)
}

// insertServer inserts srv, or with replace updates the server of its id.
func (s *Store) insertServer(ctx context.Context, srv Server, replace bool) error {
	if srv.User == "" || srv.ID == "" || srv.Name == "" {
		return fmt.Errorf("put server: user, id and name are required")
	}
	created := srv.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	shown, secrets, err := s.sealed(srv)
	if err != nil {
		return fmt.Errorf("put server %s: %w", srv.ID, err)
	}
	query := `INSERT INTO servers (user_id, server_id, name, url, transport, created_at, secrets, header_names,
			disconnected, retry_attempts, retry_base_ms, retry_max_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	if replace {
		query += ` ON CONFLICT (user_id, server_id) DO UPDATE SET
			name = excluded.name, url = excluded.url, transport = excluded.transport, secrets = excluded.secrets,
			header_names = excluded.header_names, disconnected = excluded.disconnected,
			retry_attempts = excluded.retry_attempts, retry_base_ms = excluded.retry_base_ms, retry_max_ms = excluded.retry_max_ms`
	}
	_, err = s.exec(ctx, query, srv.User, srv.ID, srv.Name, shown, srv.Transport, created.UnixMilli(), secrets,
		strings.Join(srv.HeaderNames(), "\n"), srv.Disconnected, srv.Retry.Attempts, srv.Retry.BaseDelayMS, srv.Retry.MaxDelayMS)
	switch {
	case isPrimaryKeyViolation(err):
		return fmt.Errorf("put server %s: %w", srv.ID, ErrIDTaken)
	case isUniqueViolation(err):
		return fmt.Errorf("put server %s: %w", srv.ID, ErrNameTaken)
	case err != nil:
		return fmt.Errorf("put server %s: %w", srv.ID, err)
	}
	return nil
}

// UpdateServer replaces the settings of an existing server (ErrNotFound
// otherwise, ErrNameTaken for a name another server has). With forgetAuth
// everything it holds to authorize to the server (forgetOAuthTx) is deleted in
// the same transaction.
func (s *Store) UpdateServer(ctx context.Context, srv Server, forgetAuth bool) error {
	shown, secrets, err := s.sealed(srv)
	if err != nil {
		return fmt.Errorf("update server %s: %w", srv.ID, err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		const update = `UPDATE servers SET name = ?, url = ?, transport = ?, secrets = ?, header_names = ?, disconnected = ?,
			retry_attempts = ?, retry_base_ms = ?, retry_max_ms = ? WHERE user_id = ? AND server_id = ?`
		res, err := tx.ExecContext(ctx, update, srv.Name, shown, srv.Transport, secrets, strings.Join(srv.HeaderNames(), "\n"),
			srv.Disconnected, srv.Retry.Attempts, srv.Retry.BaseDelayMS, srv.Retry.MaxDelayMS, srv.User, srv.ID)
		if isUniqueViolation(err) {
			return ErrNameTaken
		}
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		if !forgetAuth {
			return nil
		}
		return forgetOAuthTx(ctx, tx, srv.User, srv.ID)
	})
	if err != nil {
		return fmt.Errorf("update server %s: %w", srv.ID, err)
	}
	return nil
}

// SetServerDisconnected records whether the person keeps the server
// disconnected, or returns ErrNotFound.
func (s *Store) SetServerDisconnected(ctx context.Context, user, id string, disconnected bool) error {
	res, err := s.exec(ctx, `UPDATE servers SET disconnected = ? WHERE user_id = ? AND server_id = ?`, disconnected, user, id)
	if err != nil {
		return fmt.Errorf("set server %s disconnected: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("set server %s disconnected: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteServer removes the user's server id with everything that belongs to
// it (the foreign keys cascade), or returns ErrNotFound.
func (s *Store) DeleteServer(ctx context.Context, user, id string) error {
	res, err := s.exec(ctx, `DELETE FROM servers WHERE user_id = ? AND server_id = ?`, user, id)
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
const serverColumns = `user_id, server_id, name, url, transport, created_at, secrets, header_names,
	disconnected, retry_attempts, retry_base_ms, retry_max_ms`

// Servers lists the user's servers in the order they were created.
func (s *Store) Servers(ctx context.Context, user string) ([]Server, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+serverColumns+` FROM servers
		WHERE user_id = ? ORDER BY created_at, rowid`, user)
	if err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	return s.scanServers(rows)
}

// AllServers lists every user's servers in the order they were created, for
// reconnecting everything when the relay starts.
func (s *Store) AllServers(ctx context.Context) ([]Server, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+serverColumns+` FROM servers
		ORDER BY created_at, rowid`)
	if err != nil {
		return nil, fmt.Errorf("list all servers: %w", err)
	}
	return s.scanServers(rows)
}

// scanServers reads and closes rows selected with serverColumns.
func (s *Store) scanServers(rows *sql.Rows) ([]Server, error) {
	defer rows.Close()
	var out []Server
	for rows.Next() {
		var srv Server
		var created int64
		var secrets []byte
		var names string
		if err := rows.Scan(&srv.User, &srv.ID, &srv.Name, &srv.URL, &srv.Transport, &created, &secrets, &names,
			&srv.Disconnected, &srv.Retry.Attempts, &srv.Retry.BaseDelayMS, &srv.Retry.MaxDelayMS); err != nil {
			return nil, fmt.Errorf("scan server: %w", err)
		}
		srv.CreatedAt = time.UnixMilli(created).UTC()
		srv.SecretsErr = s.openSecrets(&srv, secrets, names)
		out = append(out, srv)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read servers: %w", err)
	}
	return out, nil
}

// openSecrets fills in srv's URL and headers from its sealed secrets.
// Without them, or when they do not open, the headers are the stored names
// with empty values.
func (s *Store) openSecrets(srv *Server, sealed []byte, names string) error {
	if names != "" {
		srv.Headers = map[string]string{}
		for _, n := range strings.Split(names, "\n") {
			srv.Headers[n] = ""
		}
	}
	if sealed == nil {
		return nil
	}
	plain, err := s.sealer.Open(sealed, sealContext(sealServerSecrets, srv.User, srv.ID, ""))
	if err != nil {
		return fmt.Errorf("open the secrets of server %s: %w", srv.ID, err)
	}
	var sec serverSecrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return fmt.Errorf("open the secrets of server %s: %w", srv.ID, errors.New("malformed"))
	}
	if sec.URL != "" {
		srv.DisplayURL, srv.URL = srv.URL, sec.URL
	}
	if len(sec.Headers) > 0 {
		srv.Headers = sec.Headers
	}
	return nil
}
