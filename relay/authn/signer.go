package authn

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// jtiBytes is the size of a token's random id.
const jtiBytes = 16

// Signer mints the relay's own tokens, EdDSA-signed with the relay key.
type Signer struct {
	key      ed25519.PrivateKey
	issuer   string
	audience string
}

// NewSigner returns a Signer whose tokens carry issuer and audience; a
// Verifier configured with the same values and key.Public() accepts them.
func NewSigner(key ed25519.PrivateKey, issuer, audience string) *Signer {
	return &Signer{key: key, issuer: issuer, audience: audience}
}

// Mint returns a token for sub valid for ttl from now, with claims iss, aud,
// sub, iat, exp and a random jti.
func (s *Signer) Mint(sub string, ttl time.Duration) (string, error) {
	if err := checkSubject(sub); err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	if ttl <= 0 {
		return "", fmt.Errorf("mint token: ttl %v is not positive", ttl)
	}
	id := make([]byte, jtiBytes)
	if _, err := rand.Read(id); err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    s.issuer,
		Audience:  jwt.ClaimStrings{s.audience},
		Subject:   sub,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		ID:        base64.RawURLEncoding.EncodeToString(id),
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	return token, nil
}
