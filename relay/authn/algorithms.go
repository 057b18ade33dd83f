package authn

import (
	"crypto/ed25519"
	"crypto/rsa"
	"slices"

	"github.com/golang-jwt/jwt/v5"
)

// Algorithms are pinned to key types: a token's alg header only picks among
// the algorithms its key allows, never the key type.
var (
	// ed25519Algs are the algorithms an Ed25519 key verifies.
	ed25519Algs = []string{jwt.SigningMethodEdDSA.Alg()}
	// rsaAlgs are the algorithms an RSA key verifies.
	rsaAlgs = []string{
		jwt.SigningMethodRS256.Alg(), jwt.SigningMethodRS384.Alg(), jwt.SigningMethodRS512.Alg(),
		jwt.SigningMethodPS256.Alg(), jwt.SigningMethodPS384.Alg(), jwt.SigningMethodPS512.Alg(),
	}
	// allAlgs is every algorithm the Verifier accepts at all.
	allAlgs = slices.Concat(ed25519Algs, rsaAlgs)
)

// algsFor returns the algorithms a public key type allows, or nil for a key
// type the relay does not accept.
func algsFor(key any) []string {
	switch key.(type) {
	case ed25519.PublicKey:
		return ed25519Algs
	case *rsa.PublicKey:
		return rsaAlgs
	}
	return nil
}
