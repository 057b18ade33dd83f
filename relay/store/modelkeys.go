package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// sealModelKey is the sealing context of model_keys.key.
const sealModelKey = "model_keys.key"

// ModelKeyStore keeps the people's own keys for the configured models,
// sealed. Get one with [Store.ModelKeys].
type ModelKeyStore struct {
	store  *Store
	sealer *Sealer
}

// ModelKeys returns the model keys of s, sealing them with sealer.
func (s *Store) ModelKeys(sealer *Sealer) *ModelKeyStore {
	return &ModelKeyStore{store: s, sealer: sealer}
}

// Set stores key as the user's key for model, replacing any; an empty key
// removes it.
func (m *ModelKeyStore) Set(ctx context.Context, user, model, key string) error {
	if user == "" || model == "" {
		return errors.New("set model key: user and model are required")
	}
	if key == "" {
		if _, err := m.store.db.ExecContext(ctx, `DELETE FROM model_keys WHERE user_id = ? AND model = ?`, user, model); err != nil {
			return fmt.Errorf("delete model key of %s: %w", model, err)
		}
		return nil
	}
	sealed := m.sealer.Seal([]byte(key), sealContext(sealModelKey, user, model, ""))
	const upsert = `INSERT INTO model_keys (user_id, model, key, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id, model) DO UPDATE SET key = excluded.key, created_at = excluded.created_at`
	if _, err := m.store.db.ExecContext(ctx, upsert, user, model, sealed, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("set model key of %s: %w", model, err)
	}
	return nil
}

// Get returns the user's key for model; "" when there is none. A key that
// does not open gives ErrUnseal.
func (m *ModelKeyStore) Get(ctx context.Context, user, model string) (string, error) {
	var sealed []byte
	err := m.store.db.QueryRowContext(ctx, `SELECT key FROM model_keys WHERE user_id = ? AND model = ?`, user, model).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read model key of %s: %w", model, err)
	}
	plain, err := m.sealer.Open(sealed, sealContext(sealModelKey, user, model, ""))
	if err != nil {
		return "", fmt.Errorf("read model key of %s: %w", model, err)
	}
	return string(plain), nil
}

// Names returns the models the user has a key for, sorted; never the keys.
func (m *ModelKeyStore) Names(ctx context.Context, user string) ([]string, error) {
	return m.store.strings(ctx, "list model keys", `SELECT model FROM model_keys WHERE user_id = ? ORDER BY model`, user)
}
