package store

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// relayKeySetting holds the relay's signing key, sealed, in a shared store.
const relayKeySetting = "relay_key"

// RelayKey returns the relay's signing key kept in the store, made on first
// use: replicas sign sessions with one key, so that any of them verifies
// what another signed. The key is sealed like every secret; when two
// processes make it at once, both get the one written first.
func (s *Store) RelayKey(ctx context.Context) (ed25519.PrivateKey, error) {
	_, made, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("relay key: %w", err)
	}
	sealed := s.sealer.Seal(made.Seed(), relayKeySetting)
	const insert = `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`
	if _, err := s.exec(ctx, insert, relayKeySetting, base64.StdEncoding.EncodeToString(sealed)); err != nil {
		return nil, fmt.Errorf("relay key: write: %w", err)
	}
	value, _, err := s.Setting(ctx, relayKeySetting)
	if err != nil {
		return nil, fmt.Errorf("relay key: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		return nil, fmt.Errorf("relay key: stored value is not base64")
	}
	seed, err := s.sealer.Open(b, relayKeySetting)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("relay key: cannot open the stored key with this seal key")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
