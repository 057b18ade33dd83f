package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// sealIdentityTokens is the sealing context of identity_tokens.secrets.
const sealIdentityTokens = "identity_tokens.secrets"

// IdentityToken is what the identity provider of sign-in issued to a user:
// the ID token and the refresh token that renews it. IDToken and
// RefreshToken are plain in memory and sealed at rest.
type IdentityToken struct {
	User         string
	Issuer       string
	IDToken      string
	RefreshToken string    // empty when the provider issued none
	Expiry       time.Time // the ID token's expiry
	UpdatedAt    time.Time
}

// identitySecrets is the sealed part of an IdentityToken.
type identitySecrets struct {
	ID      string `json:"i"`
	Refresh string `json:"r,omitempty"`
}

// IdentityTokens is the table of users' sign-in tokens, sealing them with
// its sealer.
type IdentityTokens struct {
	store  *Store
	sealer *Sealer
}

// IdentityTokens returns the sign-in tokens of s, sealed with sealer.
func (s *Store) IdentityTokens(sealer *Sealer) *IdentityTokens {
	return &IdentityTokens{store: s, sealer: sealer}
}

// Put stores t, replacing the user's previous tokens.
func (it *IdentityTokens) Put(ctx context.Context, t IdentityToken) error {
	if t.User == "" || t.IDToken == "" {
		return errors.New("put identity token: user and ID token are required")
	}
	plain, err := json.Marshal(identitySecrets{ID: t.IDToken, Refresh: t.RefreshToken})
	if err != nil {
		return fmt.Errorf("put identity token: %w", err)
	}
	sealed := it.sealer.Seal(plain, sealContext(sealIdentityTokens, t.User, "", t.Issuer))
	updated := t.UpdatedAt
	if updated.IsZero() {
		updated = time.Now()
	}
	const upsert = `INSERT INTO identity_tokens (user_id, issuer, secrets, expires_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET issuer = excluded.issuer, secrets = excluded.secrets,
			expires_at = excluded.expires_at, updated_at = excluded.updated_at`
	if _, err := it.store.db.ExecContext(ctx, upsert, t.User, t.Issuer, sealed, t.Expiry.UnixMilli(), updated.UnixMilli()); err != nil {
		return fmt.Errorf("put identity token: %w", err)
	}
	return nil
}

// Get returns user's tokens; ok is false when there are none.
func (it *IdentityTokens) Get(ctx context.Context, user string) (t IdentityToken, ok bool, err error) {
	var sealed []byte
	var expires, updated int64
	const query = `SELECT issuer, secrets, expires_at, updated_at FROM identity_tokens WHERE user_id = ?`
	err = it.store.db.QueryRowContext(ctx, query, user).Scan(&t.Issuer, &sealed, &expires, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return IdentityToken{}, false, nil
	}
	if err != nil {
		return IdentityToken{}, false, fmt.Errorf("read identity token: %w", err)
	}
	plain, err := it.sealer.Open(sealed, sealContext(sealIdentityTokens, user, "", t.Issuer))
	if err != nil {
		return IdentityToken{}, false, fmt.Errorf("read identity token: %w", err)
	}
	var sec identitySecrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return IdentityToken{}, false, fmt.Errorf("read identity token: %w", err)
	}
	t.User, t.IDToken, t.RefreshToken = user, sec.ID, sec.Refresh
	t.Expiry, t.UpdatedAt = time.UnixMilli(expires), time.UnixMilli(updated)
	return t, true, nil
}

// Delete forgets user's tokens, at sign-out.
func (it *IdentityTokens) Delete(ctx context.Context, user string) error {
	if _, err := it.store.db.ExecContext(ctx, `DELETE FROM identity_tokens WHERE user_id = ?`, user); err != nil {
		return fmt.Errorf("delete identity token: %w", err)
	}
	return nil
}
