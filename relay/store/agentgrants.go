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
	"time"
)

// Prefixes of the tokens the relay's authorization server issues: an
// access token reads AccessTokenPrefix + 43 base64url characters, a
// refresh token RefreshTokenPrefix + the same. Only their hashes are kept.
const (
	AccessTokenPrefix  = "sba_"
	RefreshTokenPrefix = "sbr_"
)

// Kinds of agent tokens.
const (
	TokenAccess  = "access"
	TokenRefresh = "refresh"
)

// agentTokenBytes is the randomness of an agent token.
const agentTokenBytes = 32

// Errors of the agent grants.
var (
	// ErrGrantRevoked is returned for a token of a revoked grant.
	ErrGrantRevoked = errors.New("grant revoked")
	// ErrRefreshReused is returned by RotateAgentRefresh for a refresh
	// token already rotated; the grant is revoked with it.
	ErrRefreshReused = errors.New("refresh token reused; the grant is revoked")
)

// AgentGrant is a person's consent for an OAuth client to use their
// servers through one agent endpoint.
type AgentGrant struct {
	ID          string
	User        string
	ClientID    string
	ClientName  string
	ClientHost  string
	RedirectURI string
	Resource    string   // the endpoint URL its tokens are bound to
	AllServers  bool     // every server of the user, including later ones
	Servers     []string // server ids when not AllServers; removed servers drop out
	ToolMode    string   // "tools", "code" or "both" (see wire.ToolMode); "" is "tools"
	Created     time.Time
	LastUsed    time.Time
	Revoked     time.Time
}

// AgentToken is an issued token as stored: its hash, never the token.
type AgentToken struct {
	Hash    []byte
	GrantID string
	Kind    string // TokenAccess or TokenRefresh
	Expires time.Time
	Used    time.Time // a refresh token: when it was rotated
}

// AgentClient is a dynamically registered OAuth client (RFC 7591).
type AgentClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	Created      time.Time
	Expires      time.Time // zero once a grant uses it
}

// HashAgentToken is the hash stored for token.
func HashAgentToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// NewAgentToken returns a fresh token of kind expiring at expires, and its
// record to store.
func NewAgentToken(kind string, expires time.Time) (string, AgentToken) {
	b := make([]byte, agentTokenBytes)
	rand.Read(b)
	prefix := AccessTokenPrefix
	if kind == TokenRefresh {
		prefix = RefreshTokenPrefix
	}
	tok := prefix + base64.RawURLEncoding.EncodeToString(b)
	return tok, AgentToken{Hash: HashAgentToken(tok), Kind: kind, Expires: expires}
}

// newAgentID returns a random id of 12 hex digits.
func newAgentID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateAgentGrant stores g (its ID and Created are set here) with its
// first tokens, and marks its dynamically registered client used, in one
// transaction. A listed server the user does not have is ErrNotFound.
func (s *Store) CreateAgentGrant(ctx context.Context, g AgentGrant, tokens ...AgentToken) (AgentGrant, error) {
	g.ID, g.Created = newAgentID(), time.Now().UTC()
	if g.ToolMode == "" {
		g.ToolMode = "tools"
	}
	if g.AllServers {
		g.Servers = nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		const insert = `INSERT INTO agent_grants (grant_id, user_id, client_id, client_name, client_host,
			redirect_uri, resource, all_servers, tool_mode, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`
		if _, err := tx.ExecContext(ctx, insert, g.ID, g.User, g.ClientID, g.ClientName, g.ClientHost,
			g.RedirectURI, g.Resource, g.AllServers, g.ToolMode, g.Created.UnixMilli()); err != nil {
			return err
		}
		for _, srv := range g.Servers {
			res, err := tx.ExecContext(ctx, `INSERT INTO agent_grant_servers (grant_id, user_id, server_id)
				SELECT ?, user_id, server_id FROM servers WHERE user_id = ? AND server_id = ?
				ON CONFLICT (grant_id, server_id) DO NOTHING`, g.ID, g.User, srv)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("server %q: %w", srv, ErrNotFound)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE agent_oauth_clients SET expires_at = 0 WHERE client_id = ?`, g.ClientID); err != nil {
			return err
		}
		return insertAgentTokens(ctx, tx, g.ID, tokens)
	})
	if err != nil {
		return AgentGrant{}, fmt.Errorf("create agent grant: %w", err)
	}
	return g, nil
}

// insertAgentTokens stores tokens for grant.
func insertAgentTokens(ctx context.Context, tx *sql.Tx, grant string, tokens []AgentToken) error {
	for _, t := range tokens {
		if _, err := tx.ExecContext(ctx, `INSERT INTO agent_tokens (token_hash, grant_id, kind, expires_at, used_at)
			VALUES (?, ?, ?, ?, 0)`, t.Hash, grant, t.Kind, t.Expires.UnixMilli()); err != nil {
			return err
		}
	}
	return nil
}

// agentGrantColumns is the column list readAgentGrants expects.
const agentGrantColumns = `g.grant_id, g.user_id, g.client_id, g.client_name, g.client_host, g.redirect_uri,
	g.resource, g.all_servers, g.tool_mode, g.created_at, g.last_used_at, g.revoked_at`

// AgentGrantByToken returns the token whose hash is hash and its grant, or
// ErrNotFound. It does not judge expiry or revocation.
func (s *Store) AgentGrantByToken(ctx context.Context, hash []byte) (AgentGrant, AgentToken, error) {
	var t AgentToken
	var expires, used int64
	err := s.db.QueryRowContext(ctx, `SELECT token_hash, grant_id, kind, expires_at, used_at FROM agent_tokens
		WHERE token_hash = ?`, hash).Scan(&t.Hash, &t.GrantID, &t.Kind, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return AgentGrant{}, AgentToken{}, fmt.Errorf("agent token: %w", ErrNotFound)
	}
	if err != nil {
		return AgentGrant{}, AgentToken{}, fmt.Errorf("agent token: %w", err)
	}
	t.Expires, t.Used = fromMilli(expires), fromMilli(used)
	g, err := s.AgentGrantByID(ctx, t.GrantID)
	return g, t, err
}

// AgentGrantByID returns grant id, or ErrNotFound.
func (s *Store) AgentGrantByID(ctx context.Context, id string) (AgentGrant, error) {
	grants, err := s.queryAgentGrants(ctx, `WHERE g.grant_id = ?`, id)
	if err != nil {
		return AgentGrant{}, err
	}
	if len(grants) == 0 {
		return AgentGrant{}, fmt.Errorf("agent grant: %w", ErrNotFound)
	}
	return grants[0], nil
}

// AgentGrants lists the user's grants, revoked ones included, oldest first.
func (s *Store) AgentGrants(ctx context.Context, user string) ([]AgentGrant, error) {
	return s.queryAgentGrants(ctx, `WHERE g.user_id = ? ORDER BY g.created_at, g.rowid`, user)
}

// AgentClientHostKnown reports whether the user ever granted a client of host.
func (s *Store) AgentClientHostKnown(ctx context.Context, user, host string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_grants WHERE user_id = ? AND client_host = ?`, user, host).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("agent client host: %w", err)
	}
	return n > 0, nil
}

// queryAgentGrants selects grants with the clause where and loads their servers.
func (s *Store) queryAgentGrants(ctx context.Context, where string, args ...any) ([]AgentGrant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+agentGrantColumns+` FROM agent_grants g `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("agent grants: %w", err)
	}
	var out []AgentGrant
	func() {
		defer rows.Close()
		for rows.Next() {
			var g AgentGrant
			var created, used, revoked int64
			if err = rows.Scan(&g.ID, &g.User, &g.ClientID, &g.ClientName, &g.ClientHost, &g.RedirectURI,
				&g.Resource, &g.AllServers, &g.ToolMode, &created, &used, &revoked); err != nil {
				return
			}
			g.Created, g.LastUsed, g.Revoked = fromMilli(created), fromMilli(used), fromMilli(revoked)
			out = append(out, g)
		}
		err = rows.Err()
	}()
	if err != nil {
		return nil, fmt.Errorf("agent grants: %w", err)
	}
	for i := range out {
		if out[i].AllServers {
			continue
		}
		if out[i].Servers, err = s.agentGrantServers(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// agentGrantServers lists the servers of grant id.
func (s *Store) agentGrantServers(ctx context.Context, id string) ([]string, error) {
	return s.strings(ctx, "agent grant servers", `SELECT server_id FROM agent_grant_servers WHERE grant_id = ? ORDER BY server_id`, id)
}

// RotateAgentRefresh spends the refresh token whose hash is old and stores
// the grant's next tokens. A token already spent revokes its grant and
// returns ErrRefreshReused; a revoked grant returns ErrGrantRevoked.
func (s *Store) RotateAgentRefresh(ctx context.Context, old []byte, now time.Time, next ...AgentToken) (AgentGrant, error) {
	var grant string
	reused := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var used, expires, revoked int64
		err := tx.QueryRowContext(ctx, `SELECT t.grant_id, t.used_at, t.expires_at, g.revoked_at FROM agent_tokens t
			JOIN agent_grants g ON g.grant_id = t.grant_id WHERE t.token_hash = ? AND t.kind = ?`, old, TokenRefresh).
			Scan(&grant, &used, &expires, &revoked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrNotFound
		case err != nil:
			return err
		case revoked != 0:
			return ErrGrantRevoked
		case used != 0:
			reused = true
			_, err := tx.ExecContext(ctx, `UPDATE agent_grants SET revoked_at = ? WHERE grant_id = ?`, now.UnixMilli(), grant)
			return err
		case expires <= now.UnixMilli():
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `UPDATE agent_tokens SET used_at = ? WHERE token_hash = ?`, now.UnixMilli(), old); err != nil {
			return err
		}
		return insertAgentTokens(ctx, tx, grant, next)
	})
	if err != nil {
		return AgentGrant{}, fmt.Errorf("rotate refresh token: %w", err)
	}
	if reused {
		return AgentGrant{ID: grant}, fmt.Errorf("rotate refresh token: %w", ErrRefreshReused)
	}
	return s.AgentGrantByID(ctx, grant)
}

// RevokeAgentGrant revokes the user's grant id and drops its tokens. It
// returns ErrNotFound when the user has no such grant, ErrGrantRevoked
// when it is already revoked.
func (s *Store) RevokeAgentGrant(ctx context.Context, user, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var revoked int64
		err := tx.QueryRowContext(ctx, `SELECT revoked_at FROM agent_grants WHERE grant_id = ? AND user_id = ?`, id, user).Scan(&revoked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrNotFound
		case err != nil:
			return err
		case revoked != 0:
			return ErrGrantRevoked
		}
		if _, err := tx.ExecContext(ctx, `UPDATE agent_grants SET revoked_at = ? WHERE grant_id = ?`, time.Now().UnixMilli(), id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM agent_tokens WHERE grant_id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke agent grant: %w", err)
	}
	return nil
}

// DeleteAgentToken forgets the token whose hash is hash (RFC 7009
// revocation of an access token); an unknown token is no error.
func (s *Store) DeleteAgentToken(ctx context.Context, hash []byte) error {
	if _, err := s.exec(ctx, `DELETE FROM agent_tokens WHERE token_hash = ?`, hash); err != nil {
		return fmt.Errorf("delete agent token: %w", err)
	}
	return nil
}

// TouchAgentGrant records that grant id was used at now; writes closer
// than a minute apart are skipped.
func (s *Store) TouchAgentGrant(ctx context.Context, id string, now time.Time) error {
	_, err := s.exec(ctx, `UPDATE agent_grants SET last_used_at = ?
		WHERE grant_id = ? AND last_used_at < ?`, now.UnixMilli(), id, now.Add(-agentKeyTouchEvery).UnixMilli())
	if err != nil {
		return fmt.Errorf("touch agent grant: %w", err)
	}
	return nil
}

// DeleteExpiredAgentTokens forgets tokens expired before now.
func (s *Store) DeleteExpiredAgentTokens(ctx context.Context, now time.Time) error {
	if _, err := s.exec(ctx, `DELETE FROM agent_tokens WHERE expires_at < ?`, now.UnixMilli()); err != nil {
		return fmt.Errorf("delete expired agent tokens: %w", err)
	}
	return nil
}

// PutAgentClient stores a dynamically registered client; its ID is set here.
func (s *Store) PutAgentClient(ctx context.Context, c AgentClient) (AgentClient, error) {
	c.ID, c.Created = "sbc_"+newAgentID()+newAgentID(), time.Now().UTC()
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return AgentClient{}, fmt.Errorf("register agent client: %w", err)
	}
	_, err = s.exec(ctx, `INSERT INTO agent_oauth_clients (client_id, name, redirect_uris, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, c.ID, c.Name, string(uris), c.Created.UnixMilli(), unixMilliOrZero(c.Expires))
	if err != nil {
		return AgentClient{}, fmt.Errorf("register agent client: %w", err)
	}
	return c, nil
}

// AgentClientByID returns the registered client id, or ErrNotFound (also
// for a registration that expired unused).
func (s *Store) AgentClientByID(ctx context.Context, id string, now time.Time) (AgentClient, error) {
	var c AgentClient
	var uris string
	var created, expires int64
	err := s.db.QueryRowContext(ctx, `SELECT client_id, name, redirect_uris, created_at, expires_at FROM agent_oauth_clients
		WHERE client_id = ?`, id).Scan(&c.ID, &c.Name, &uris, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) || err == nil && expires != 0 && expires <= now.UnixMilli() {
		return AgentClient{}, fmt.Errorf("agent client: %w", ErrNotFound)
	}
	if err != nil {
		return AgentClient{}, fmt.Errorf("agent client: %w", err)
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return AgentClient{}, fmt.Errorf("agent client %s: redirect URIs: %w", id, err)
	}
	c.Created, c.Expires = fromMilli(created), fromMilli(expires)
	return c, nil
}

// DeleteUnusedAgentClients forgets registrations that expired unused.
func (s *Store) DeleteUnusedAgentClients(ctx context.Context, now time.Time) error {
	if _, err := s.exec(ctx, `DELETE FROM agent_oauth_clients WHERE expires_at != 0 AND expires_at <= ?`, now.UnixMilli()); err != nil {
		return fmt.Errorf("delete unused agent clients: %w", err)
	}
	return nil
}

// RevokedAgentGrants returns the ids of the grants revoked at or after
// since, so that every relay on the store ends their agents' sessions.
func (s *Store) RevokedAgentGrants(ctx context.Context, since time.Time) ([]string, error) {
	return s.strings(ctx, "revoked agent grants", `SELECT grant_id FROM agent_grants WHERE revoked_at >= ? AND revoked_at > 0`, since.UnixMilli())
}
