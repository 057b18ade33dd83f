package authn_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	relayIssuer   = "switchboard-relay"
	relayAudience = "switchboard"
	hostIssuer    = "https://host.example"
)

// Keys are generated once per test binary; RSA generation is slow.
var (
	relayKey  = sync.OnceValue(func() ed25519.PrivateKey { return newEd25519() })
	hostEdKey = sync.OnceValue(func() ed25519.PrivateKey { return newEd25519() })
	hostRSA   = sync.OnceValue(func() *rsa.PrivateKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		return k
	})
)

func newEd25519() ed25519.PrivateKey {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

// publicPEM encodes public keys as PUBLIC KEY blocks.
func publicPEM(t *testing.T, pubs ...any) []byte {
	t.Helper()
	var out []byte
	for _, pub := range pubs {
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})...)
	}
	return out
}

// writeFile writes data into the test's temporary directory.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// b64 is base64url without padding, as JWK members are encoded.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwkEd25519 and jwkRSA build JWKS entries.
func jwkEd25519(kid string, pub ed25519.PublicKey) map[string]string {
	return map[string]string{"kty": "OKP", "crv": "Ed25519", "x": b64(pub), "kid": kid}
}

func jwkRSA(kid string, pub *rsa.PublicKey) map[string]string {
	return map[string]string{"kty": "RSA", "n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes()), "kid": kid}
}

// jwksJSON encodes entries as a JWK Set.
func jwksJSON(t *testing.T, keys ...map[string]string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hostClaims are valid claims of a host token for user ann at now.
func hostClaims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": hostIssuer,
		"aud": relayAudience,
		"sub": "ann",
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
	}
}

// sign signs claims with method and key, setting kid when not empty.
func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign %s: %v", method.Alg(), err)
	}
	return s
}
