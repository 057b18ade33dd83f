package authn_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestLoadHostKeysRefusesUnusableFiles(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(hostEdKey())
	if err != nil {
		t.Fatal(err)
	}
	edPub := hostEdKey().Public().(ed25519.PublicKey)
	withD := jwkEd25519("a", edPub)
	withD["d"] = b64(hostEdKey().Seed())
	shortX := jwkEd25519("a", edPub[:16])
	wrongAlg := jwkEd25519("a", edPub)
	wrongAlg["alg"] = "RS256"
	evenE := jwkRSA("r", &hostRSA().PublicKey)
	evenE["e"] = b64([]byte{2})

	tests := []struct {
		name string
		data []byte
	}{
		{"empty file", nil},
		{"private key PEM", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER})},
		{"RSA key under 2048 bits", publicPEM(t, &small.PublicKey)},
		{"public key then garbage block", append(publicPEM(t, hostEdKey().Public()), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1, 2}})...)},
		{"JWKS with private member d", jwksJSON(t, withD)},
		{"JWKS without keys", []byte(`{"keys": []}`)},
		{"JWKS with only an EC key", []byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`)},
		{"JWKS with only an encryption key", jwksJSON(t, map[string]string{"kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB"})},
		{"JWKS Ed25519 x too short", jwksJSON(t, shortX)},
		{"JWKS alg that does not fit the key", jwksJSON(t, wrongAlg)},
		{"JWKS RSA even exponent", jwksJSON(t, evenE)},
		{"JWKS not JSON", []byte(`{"keys": [`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := authn.LoadHostKeys(writeFile(t, "host-keys", tt.data)); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestLoadHostKeysSkipsKeysItCannotUseInJWKS(t *testing.T) {
	data := []byte(`{"keys":[
		{"kty":"EC","crv":"P-256","x":"AA","y":"AA","kid":"ec"},
		{"kty":"OKP","crv":"Ed25519","x":"` + b64(hostEdKey().Public().(ed25519.PublicKey)) + `","kid":"ed","use":"sig"}
	]}`)
	if _, err := authn.LoadHostKeys(writeFile(t, "jwks.json", data)); err != nil {
		t.Fatalf("a set with one usable key among others: %v", err)
	}
}
