package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// AgentKeyPrefix starts every agent key. A key reads
// AgentKeyPrefix + id + "_" + secret: the id finds the stored hash, the
// whole key is compared with it.
const AgentKeyPrefix = "sbk_"

const (
	agentKeyIDBytes     = 6  // 12 hex characters
	agentKeySecretBytes = 32 // 256 bits of randomness
)

// ErrKeyRevoked is returned by RevokeAgentKey for a key already revoked.
var ErrKeyRevoked = errors.New("agent key already revoked")

// AgentKey is an agent's credential as stored: everything but the key,
// of which only the SHA-256 hash is kept.
type AgentKey struct {
	ID         string
	User       string
	Name       string
	AllServers bool     // every server of the user, including later ones
	Servers    []string // server ids when not AllServers; removed servers drop out
	Tools      []string // allowed tool names; nil for all
	// ForwardSampling: the person may hand a sampling request raised during
	// this agent's call to the agent's own client (off by default).
	ForwardSampling bool
	// ToolMode is how the key's agents see the tools on the aggregate
	// endpoint: "tools", "code" or "both" (see wire.ToolMode).
	ToolMode string
	Expires  time.Time
	Created  time.Time
	LastUsed time.Time
	Revoked  time.Time
	Hash     []byte // SHA-256 of the whole key
}

// NewAgentKey is what CreateAgentKey needs to mint a key.
type NewAgentKey struct {
	User       string
	Name       string
	AllServers bool
	Servers    []string // must be the user's servers
	Tools      []string // nil for all
	// ForwardSampling and ToolMode: see [AgentKey]; ToolMode "" is "tools".
	ForwardSampling bool
	ToolMode        string
	Expires         time.Time
}

// HashAgentKey is the hash stored for key.
func HashAgentKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// AgentKeyID returns the id inside key, or false when key is not shaped like
// an agent key.
func AgentKeyID(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, AgentKeyPrefix)
	if !ok {
		return "", false
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok || len(id) != 2*agentKeyIDBytes || len(secret) == 0 {
		return "", false
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", false
	}
	return id, true
}

// CreateAgentKey mints a key, stores its hash and returns the stored record
// and the key, which is never stored and cannot be read again.
func (s *Store) CreateAgentKey(ctx context.Context, n NewAgentKey) (AgentKey, string, error) {
	if n.User == "" || n.Name == "" {
		return AgentKey{}, "", errors.New("create agent key: user and name are required")
	}
	idb := make([]byte, agentKeyIDBytes)
	secret := make([]byte, agentKeySecretBytes)
	rand.Read(idb)
	rand.Read(secret)
	k := AgentKey{
		ID: hex.EncodeToString(idb), User: n.User, Name: n.Name,
		AllServers: n.AllServers, Tools: n.Tools, ForwardSampling: n.ForwardSampling, ToolMode: n.ToolMode,
		Expires: n.Expires, Created: time.Now().UTC(),
	}
	if k.ToolMode == "" {
		k.ToolMode = "tools"
	}
	if !n.AllServers {
		k.Servers = append([]string{}, n.Servers...)
	}
	key := AgentKeyPrefix + k.ID + "_" + base64.RawURLEncoding.EncodeToString(secret)
	k.Hash = HashAgentKey(key)
	var tools any // NULL for all tools
	if n.Tools != nil {
		b, err := json.Marshal(n.Tools)
		if err != nil {
			return AgentKey{}, "", fmt.Errorf("create agent key: %w", err)
		}
		tools = string(b)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		const insert = `INSERT INTO agent_keys (key_id, user_id, name, secret_hash, all_servers, tools,
			forward_sampling, tool_mode, expires_at, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`
		if _, err := tx.ExecContext(ctx, insert, k.ID, k.User, k.Name, k.Hash, k.AllServers, tools,
			k.ForwardSampling, k.ToolMode, unixMilliOrZero(k.Expires), k.Created.UnixMilli()); err != nil {
			return err
		}
		for _, srv := range k.Servers {
			var found int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM servers WHERE user_id = ? AND server_id = ?`, k.User, srv).Scan(&found)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("server %q: %w", srv, ErrNotFound)
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO agent_key_servers (key_id, user_id, server_id) VALUES (?, ?, ?)
				ON CONFLICT (key_id, server_id) DO NOTHING`,
				k.ID, k.User, srv); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return AgentKey{}, "", fmt.Errorf("create agent key: %w", err)
	}
	return k, key, nil
}

// agentKeyColumns is the column list scanAgentKey expects.
const agentKeyColumns = `key_id, user_id, name, secret_hash, all_servers, tools, forward_sampling, tool_mode,
	expires_at, created_at, last_used_at, revoked_at`

// AgentKeyByID returns the key id, or ErrNotFound.
func (s *Store) AgentKeyByID(ctx context.Context, id string) (AgentKey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+agentKeyColumns+` FROM agent_keys WHERE key_id = ?`, id)
	if err != nil {
		return AgentKey{}, fmt.Errorf("agent key: %w", err)
	}
	keys, err := s.scanAgentKeys(ctx, rows)
	if err != nil {
		return AgentKey{}, err
	}
	if len(keys) == 0 {
		return AgentKey{}, fmt.Errorf("agent key: %w", ErrNotFound)
	}
	return keys[0], nil
}

// AgentKeys lists the user's keys, revoked ones included, oldest first.
func (s *Store) AgentKeys(ctx context.Context, user string) ([]AgentKey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+agentKeyColumns+` FROM agent_keys
		WHERE user_id = ? ORDER BY created_at, rowid`, user)
	if err != nil {
		return nil, fmt.Errorf("list agent keys: %w", err)
	}
	return s.scanAgentKeys(ctx, rows)
}

// RevokedAgentKeys lists the ids of keys revoked at or after since, for a
// running relay to close what a revocation elsewhere ended.
func (s *Store) RevokedAgentKeys(ctx context.Context, since time.Time) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key_id FROM agent_keys WHERE revoked_at >= ? AND revoked_at > 0`, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("revoked agent keys: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("revoked agent keys: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// RevokeAgentKey revokes the user's key id. It returns ErrNotFound when the
// user has no such key and ErrKeyRevoked when it is already revoked.
func (s *Store) RevokeAgentKey(ctx context.Context, user, id string) error {
	res, err := s.exec(ctx, `UPDATE agent_keys SET revoked_at = ?
		WHERE key_id = ? AND user_id = ? AND revoked_at = 0`, time.Now().UnixMilli(), id, user)
	if err != nil {
		return fmt.Errorf("revoke agent key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	k, err := s.AgentKeyByID(ctx, id)
	if err != nil || k.User != user {
		return fmt.Errorf("revoke agent key: %w", ErrNotFound)
	}
	return fmt.Errorf("revoke agent key: %w", ErrKeyRevoked)
}

// agentKeyTouchEvery bounds how often a key's last use is written.
const agentKeyTouchEvery = time.Minute

// TouchAgentKey records that key id was used at now; writes closer than a
// minute apart are skipped.
func (s *Store) TouchAgentKey(ctx context.Context, id string, now time.Time) error {
	_, err := s.exec(ctx, `UPDATE agent_keys SET last_used_at = ?
		WHERE key_id = ? AND last_used_at < ?`, now.UnixMilli(), id, now.Add(-agentKeyTouchEvery).UnixMilli())
	if err != nil {
		return fmt.Errorf("touch agent key: %w", err)
	}
	return nil
}

// scanAgentKeys reads and closes rows selected with agentKeyColumns, then
// loads each key's servers.
func (s *Store) scanAgentKeys(ctx context.Context, rows *sql.Rows) ([]AgentKey, error) {
	out, err := readAgentKeys(rows)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].AllServers {
			continue
		}
		ids, err := s.agentKeyServers(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		out[i].Servers = ids
	}
	return out, nil
}

// readAgentKeys reads and closes rows selected with agentKeyColumns.
func readAgentKeys(rows *sql.Rows) ([]AgentKey, error) {
	defer rows.Close()
	var out []AgentKey
	for rows.Next() {
		var k AgentKey
		var tools sql.NullString
		var expires, created, used, revoked int64
		if err := rows.Scan(&k.ID, &k.User, &k.Name, &k.Hash, &k.AllServers, &tools, &k.ForwardSampling, &k.ToolMode,
			&expires, &created, &used, &revoked); err != nil {
			return nil, fmt.Errorf("scan agent key: %w", err)
		}
		if tools.Valid {
			if err := json.Unmarshal([]byte(tools.String), &k.Tools); err != nil || k.Tools == nil {
				k.Tools = []string{} // unreadable: allow nothing rather than everything
			}
		}
		k.Expires, k.Created, k.LastUsed, k.Revoked = fromMilli(expires), fromMilli(created), fromMilli(used), fromMilli(revoked)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read agent keys: %w", err)
	}
	return out, nil
}

// agentKeyServers lists the server ids key id may reach, never nil.
func (s *Store) agentKeyServers(ctx context.Context, id string) ([]string, error) {
	return s.strings(ctx, "agent key servers", `SELECT server_id FROM agent_key_servers WHERE key_id = ? ORDER BY rowid`, id)
}

// unixMilliOrZero stores a zero time as 0.
func unixMilliOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMilli reads what unixMilliOrZero stored.
func fromMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
