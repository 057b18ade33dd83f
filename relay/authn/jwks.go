package authn

import (
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// JWK members and values this package reads (RFC 7517, RFC 8037).
const (
	ktyOKP     = "OKP"
	ktyRSA     = "RSA"
	crvEd25519 = "Ed25519"
	useSig     = "sig"
)

// jwk is one JSON Web Key; only public members are read.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	N   string `json:"n"`
	E   string `json:"e"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	D   string `json:"d"`
}

// parseJWKS reads a JWK Set. Keys meant for encryption and key types the relay
// does not verify with (EC, for one) are skipped, since provider sets often
// carry them; a set with no usable key is refused, and so is any private key.
func parseJWKS(data []byte) ([]hostKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("parse JWKS: %w", err)
	}
	var keys []hostKey
	skipped := 0
	for i, j := range set.Keys {
		if j.D != "" {
			return nil, fmt.Errorf("JWKS key %d holds private key material; give public keys only", i)
		}
		if (j.Use != "" && j.Use != useSig) || (j.Kty != ktyOKP && j.Kty != ktyRSA) {
			skipped++
			continue
		}
		pub, err := j.publicKey()
		if err != nil {
			return nil, fmt.Errorf("JWKS key %d: %w", i, err)
		}
		k, err := newHostKey(j.Kid, pub, j.Alg)
		if err != nil {
			return nil, fmt.Errorf("JWKS key %d: %w", i, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("JWKS has no Ed25519 or RSA signing key (%d skipped)", skipped)
	}
	return keys, nil
}

// publicKey decodes an OKP/Ed25519 or RSA key.
func (j jwk) publicKey() (any, error) {
	if j.Kty == ktyOKP {
		if j.Crv != crvEd25519 {
			return nil, fmt.Errorf("OKP curve %q not accepted (want %s)", j.Crv, crvEd25519)
		}
		x, err := decodeB64URL(j.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("ed25519 x is not %d base64url bytes", ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(x), nil
	}
	n, err := decodeB64URL(j.N)
	if err != nil || len(n) == 0 {
		return nil, fmt.Errorf("RSA modulus n is not base64url")
	}
	e, err := decodeB64URL(j.E)
	if err != nil || len(e) == 0 {
		return nil, fmt.Errorf("RSA exponent e is not base64url")
	}
	exp := new(big.Int).SetBytes(e)
	if !exp.IsInt64() || exp.Int64() < 3 || exp.Int64() > math.MaxInt32 || exp.Bit(0) == 0 {
		return nil, fmt.Errorf("RSA exponent e is not an odd number from 3 to 2^31-1")
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(exp.Int64())}, nil
}

// decodeB64URL decodes base64url with or without padding.
func decodeB64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
