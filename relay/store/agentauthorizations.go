package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// agentAuthorizationRetention is how long an authorization is kept after it
// expired: its spent code, presented again within it, still revokes the
// grant it made.
const agentAuthorizationRetention = 24 * time.Hour

// Errors of the agents' authorizations.
var (
	// ErrTooManyPending is returned by PutAgentAuthorization when as many
	// requests as it allows wait for a person already.
	ErrTooManyPending = errors.New("too many authorization requests are pending")
	// ErrCodeReused is returned by SpendAgentCode for a code spent before.
	ErrCodeReused = errors.New("authorization code reused")
)

// AgentAuthorization is an agent's OAuth authorization in flight, as the
// relay's authorization server (relay/agentauth) keeps it in the store so
// that any relay on the store serves each of its steps: pending from the
// client's request until the person answers, then approved, with a code,
// until the code is spent. Only the hashes of its request id and code are
// kept; Body is the authorization server's own record (JSON), which the
// store does not read.
type AgentAuthorization struct {
	Body    []byte
	User    string    // who approved it; empty while pending
	Expires time.Time // the request's expiry, then the code's
	GrantID string    // the grant its code created, once it did
}

// PutAgentAuthorization stores the pending request id, expiring at
// expires, unless max requests are pending at now already
// (ErrTooManyPending). It also forgets authorizations expired for a day.
func (s *Store) PutAgentAuthorization(ctx context.Context, id string, body []byte, now, expires time.Time, max int) error {
	if id == "" || len(body) == 0 {
		return errors.New("put agent authorization: id and body are required")
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		cutoff := now.Add(-agentAuthorizationRetention).UnixMilli()
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_authorizations WHERE expires_at < ?`, cutoff); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		var pending int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_authorizations
			WHERE code_hash IS NULL AND expires_at > ?`, now.UnixMilli()).Scan(&pending)
		if err != nil {
			return fmt.Errorf("count: %w", err)
		}
		if pending >= max {
			return ErrTooManyPending
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO agent_authorizations
			(request_hash, code_hash, user_id, body, expires_at, spent_at, grant_id, reused) VALUES (?, NULL, '', ?, ?, 0, '', ?)`,
			hashCode(id), string(body), expires.UnixMilli(), false)
		return err
	})
	if err != nil {
		return fmt.Errorf("put agent authorization: %w", err)
	}
	return nil
}

// PendingAgentAuthorization returns request id while it waits for the
// person at now, else ErrNotFound.
func (s *Store) PendingAgentAuthorization(ctx context.Context, id string, now time.Time) (AgentAuthorization, error) {
	const query = `SELECT ` + agentAuthorizationColumns + ` FROM agent_authorizations
		WHERE request_hash = ? AND code_hash IS NULL AND expires_at > ?`
	a, err := scanAgentAuthorization(s.db.QueryRowContext(ctx, query, hashCode(id), now.UnixMilli()))
	if err != nil {
		return AgentAuthorization{}, fmt.Errorf("pending agent authorization: %w", err)
	}
	return a, nil
}

// DenyAgentAuthorization forgets request id, which the person denied, and
// returns it; ErrNotFound when it no longer waits at now (answered
// elsewhere, or expired).
func (s *Store) DenyAgentAuthorization(ctx context.Context, id string, now time.Time) (AgentAuthorization, error) {
	const deny = `DELETE FROM agent_authorizations
		WHERE request_hash = ? AND code_hash IS NULL AND expires_at > ?
		RETURNING ` + agentAuthorizationColumns
	a, err := scanAgentAuthorization(s.db.QueryRowContext(ctx, deny, hashCode(id), now.UnixMilli()))
	if err != nil {
		return AgentAuthorization{}, fmt.Errorf("deny agent authorization: %w", err)
	}
	return a, nil
}

// ApproveAgentAuthorization turns request id, approved by user, into code,
// valid until expires, with body (the request with what was approved) in
// place of the request's. Only the first answer counts: a request that no
// longer waits at now is ErrNotFound.
func (s *Store) ApproveAgentAuthorization(ctx context.Context, id, user, code string, body []byte, now, expires time.Time) error {
	if user == "" || code == "" || len(body) == 0 {
		return errors.New("approve agent authorization: user, code and body are required")
	}
	res, err := s.exec(ctx, `UPDATE agent_authorizations SET code_hash = ?, user_id = ?, body = ?, expires_at = ?
		WHERE request_hash = ? AND code_hash IS NULL AND expires_at > ?`,
		hashCode(code), user, string(body), expires.UnixMilli(), hashCode(id), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("approve agent authorization: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("approve agent authorization: %w", ErrNotFound)
	}
	return nil
}

// SpendAgentCode spends code at now and returns its authorization. A code
// is spent at most once, even by relays spending it at the same moment: a
// code spent before returns ErrCodeReused with its authorization, whose
// GrantID (if the first spend made its grant yet) is to be revoked, and is
// marked so that AgentCodeGranted tells the first spender. An unknown or
// expired code is ErrNotFound.
func (s *Store) SpendAgentCode(ctx context.Context, code string, now time.Time) (AgentAuthorization, error) {
	hash := hashCode(code)
	const spend = `UPDATE agent_authorizations SET spent_at = ?
		WHERE code_hash = ? AND spent_at = 0 AND expires_at > ?
		RETURNING ` + agentAuthorizationColumns
	a, err := scanAgentAuthorization(s.db.QueryRowContext(ctx, spend, now.UnixMilli(), hash, now.UnixMilli()))
	if !errors.Is(err, ErrNotFound) {
		if err != nil {
			return AgentAuthorization{}, fmt.Errorf("spend agent code: %w", err)
		}
		return a, nil
	}
	const again = `UPDATE agent_authorizations SET reused = ?
		WHERE code_hash = ? AND spent_at != 0
		RETURNING ` + agentAuthorizationColumns
	a, err = scanAgentAuthorization(s.db.QueryRowContext(ctx, again, true, hash))
	if err != nil {
		return AgentAuthorization{}, fmt.Errorf("spend agent code: %w", err)
	}
	return a, fmt.Errorf("spend agent code: %w", ErrCodeReused)
}

// AgentCodeGranted records grant as the one code created, and reports
// whether code was presented again since it was spent: then the grant is
// to be revoked too.
func (s *Store) AgentCodeGranted(ctx context.Context, code, grant string) (reused bool, err error) {
	err = s.db.QueryRowContext(ctx, `UPDATE agent_authorizations SET grant_id = ? WHERE code_hash = ? RETURNING reused`,
		grant, hashCode(code)).Scan(&reused)
	err = named(err)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("record the grant of an agent code: %w", err)
	}
	return reused, nil
}

// agentAuthorizationColumns are the columns scanAgentAuthorization reads.
const agentAuthorizationColumns = `body, expires_at, user_id, grant_id`

// scanAgentAuthorization reads an authorization; no row is ErrNotFound.
func scanAgentAuthorization(row *sql.Row) (AgentAuthorization, error) {
	var a AgentAuthorization
	var body string
	var expires int64
	err := row.Scan(&body, &expires, &a.User, &a.GrantID)
	if errors.Is(err, sql.ErrNoRows) {
		return AgentAuthorization{}, ErrNotFound
	}
	if err != nil {
		return AgentAuthorization{}, named(err) // the writes' RETURNING come this way too
	}
	a.Body, a.Expires = []byte(body), fromMilli(expires)
	return a, nil
}
