package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// loginCodeRetention is how long an expired login code is kept, so that a
// late click is told "expired" rather than "unknown".
const loginCodeRetention = 24 * time.Hour

// hashCode is what the store keeps instead of the code.
func hashCode(code string) []byte {
	sum := sha256.Sum256([]byte(code))
	return sum[:]
}

// PutLoginCode stores the SHA-256 hash of a one-time login code for user,
// valid until expires. It also deletes codes that expired more than a day ago.
func (s *Store) PutLoginCode(ctx context.Context, code, user string, expires time.Time) error {
	if code == "" || user == "" {
		return fmt.Errorf("put login code: code and user are required")
	}
	cutoff := time.Now().Add(-loginCodeRetention).UnixMilli()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_codes WHERE expires_at < ?`, cutoff); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		const insert = `INSERT INTO login_codes (code_hash, user_id, expires_at) VALUES (?, ?, ?)`
		if _, err := tx.ExecContext(ctx, insert, hashCode(code), user, expires.UnixMilli()); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put login code: %w", err)
	}
	return nil
}

// ConsumeLoginCode marks code used and returns its user. A code is consumed
// at most once, even under concurrent calls. It returns ErrLoginCodeUnknown,
// ErrLoginCodeUsed or ErrLoginCodeExpired when the code cannot be used; a code
// is expired from its expiry time on.
func (s *Store) ConsumeLoginCode(ctx context.Context, code string, now time.Time) (string, error) {
	hash := hashCode(code)
	const consume = `UPDATE login_codes SET used_at = ?
		WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING user_id`
	var user string
	err := s.db.QueryRowContext(ctx, consume, now.UnixMilli(), hash, now.UnixMilli()).Scan(&user)
	if err == nil {
		return user, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("consume login code: %w", err)
	}
	var usedAt sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT used_at FROM login_codes WHERE code_hash = ?`, hash).Scan(&usedAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", ErrLoginCodeUnknown
	case err != nil:
		return "", fmt.Errorf("consume login code: %w", err)
	case usedAt.Valid:
		return "", ErrLoginCodeUsed
	default:
		return "", ErrLoginCodeExpired
	}
}
