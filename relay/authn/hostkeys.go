package authn

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"slices"

	"github.com/golang-jwt/jwt/v5"
)

const (
	// minRSABits is the smallest RSA host key accepted.
	minRSABits = 2048
	// pemPublicKey is the PEM block type of a PKIX public key.
	pemPublicKey = "PUBLIC KEY"
)

// KeySet holds the public keys of a host site that mints tokens for its users.
type KeySet struct {
	keys []hostKey
}

// hostKey is one verification key with the algorithms it may be used with.
type hostKey struct {
	kid  string // empty when the key has none (PEM)
	key  any    // ed25519.PublicKey or *rsa.PublicKey
	algs []string
}

// LoadHostKeys reads a host's public keys from path: either a PEM file with
// one or more PUBLIC KEY blocks, or a JWKS JSON document ({"keys": [...]}).
// Ed25519 and RSA (at least 2048 bits) keys are accepted; private keys are
// refused.
func LoadHostKeys(path string) (*KeySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read host keys: %w", err)
	}
	var keys []hostKey
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		keys, err = parseJWKS(trimmed)
	} else {
		keys, err = parsePEMKeys(data)
	}
	if err != nil {
		return nil, fmt.Errorf("host keys %s: %w", path, err)
	}
	return &KeySet{keys: keys}, nil
}

// parsePEMKeys reads every PEM block of data; all must be public keys.
func parsePEMKeys(data []byte) ([]hostKey, error) {
	var keys []hostKey
	for n := 1; ; n++ {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != pemPublicKey {
			return nil, fmt.Errorf("PEM block %d is %q, want %q", n, block.Type, pemPublicKey)
		}
		pub, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		k, err := newHostKey("", pub, "")
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no %q PEM block found", pemPublicKey)
	}
	return keys, nil
}

// newHostKey checks that pub is a usable key type and size, and pins its
// algorithms: the family of its type, or alg alone when the key names one.
func newHostKey(kid string, pub any, alg string) (hostKey, error) {
	algs := algsFor(pub)
	if algs == nil {
		return hostKey{}, fmt.Errorf("key type %T not accepted (want Ed25519 or RSA)", pub)
	}
	if r, ok := pub.(*rsa.PublicKey); ok && r.N.BitLen() < minRSABits {
		return hostKey{}, fmt.Errorf("RSA key of %d bits is shorter than %d", r.N.BitLen(), minRSABits)
	}
	if alg != "" {
		if !slices.Contains(algs, alg) {
			return hostKey{}, fmt.Errorf("alg %q does not fit key type %T", alg, pub)
		}
		algs = []string{alg}
	}
	return hostKey{kid: kid, key: pub, algs: algs}, nil
}

// candidates returns the keys that may verify a token with this kid and alg.
// A token's kid selects keys with that kid and keys without one.
func (s *KeySet) candidates(kid, alg string) ([]jwt.VerificationKey, error) {
	var byKid []hostKey
	for _, k := range s.keys {
		if kid == "" || k.kid == "" || k.kid == kid {
			byKid = append(byKid, k)
		}
	}
	if len(byKid) == 0 {
		return nil, ErrUnknownKey
	}
	var out []jwt.VerificationKey
	for _, k := range byKid {
		if slices.Contains(k.algs, alg) {
			out = append(out, k.key)
		}
	}
	if len(out) == 0 {
		return nil, ErrAlgorithmNotAllowed
	}
	return out, nil
}
