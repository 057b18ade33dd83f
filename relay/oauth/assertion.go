package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Client authentication with a signed JWT (RFC 7523 section 2.2).
const (
	methodPrivateKeyJWT = "private_key_jwt"
	// assertionTypeJWT is the client_assertion_type of a JWT assertion.
	assertionTypeJWT = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	// assertionLifetime is how long a client assertion is valid.
	assertionLifetime = 2 * time.Minute
)

// assertionSigner signs the relay's client assertions with a private key.
type assertionSigner struct {
	key    crypto.Signer
	method jwt.SigningMethod
}

// newAssertionSigner parses a PEM private key (PKCS #8, SEC 1 or PKCS #1)
// and the algorithm to sign with: alg when given (it must suit the key),
// else the key's own (ES256, ES384 or ES512 for its curve, RS256, EdDSA).
// Its errors never hold the key.
func newAssertionSigner(pemKey, alg string) (*assertionSigner, error) {
	block, _ := pem.Decode([]byte(pemKey))
	if block == nil {
		return nil, errors.New("the private key is not PEM")
	}
	key, err := parsePrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	algs := keyAlgorithms(key)
	if len(algs) == 0 {
		return nil, errors.New("the private key is neither ECDSA (P-256, P-384, P-521), RSA nor Ed25519")
	}
	if alg == "" {
		alg = algs[0]
	}
	if !slices.Contains(algs, alg) {
		return nil, fmt.Errorf("the signing algorithm %q does not suit the private key (use one of %v)", alg, algs)
	}
	return &assertionSigner{key: key, method: jwt.GetSigningMethod(alg)}, nil
}

// parsePrivateKey reads a DER private key in any of the usual encodings.
func parsePrivateKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("the private key is not a PKCS #8, SEC 1 or PKCS #1 key")
}

// keyAlgorithms lists the JWS algorithms key can sign with, its default
// first.
func keyAlgorithms(key crypto.Signer) []string {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return []string{"ES256"}
		case elliptic.P384():
			return []string{"ES384"}
		case elliptic.P521():
			return []string{"ES512"}
		}
	case *rsa.PrivateKey:
		return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
	case ed25519.PrivateKey:
		return []string{"EdDSA"}
	}
	return nil
}

// alg is the JWS algorithm s signs with.
func (s *assertionSigner) alg() string { return s.method.Alg() }

// assertion returns a client assertion of clientID for the authorization
// server audience (its issuer identifier), valid from now for
// assertionLifetime, with a fresh jti.
func (s *assertionSigner) assertion(clientID, audience string, now time.Time) (string, error) {
	claims := jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)),
		ID:        rand.Text(),
	}
	signed, err := jwt.NewWithClaims(s.method, claims).SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	return signed, nil
}
