package authn_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func ExampleVerifier_Verify() {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	signer := authn.NewSigner(key, "switchboard-relay", "switchboard")
	verifier := authn.NewVerifier(authn.VerifierConfig{
		RelayKey: key.Public().(ed25519.PublicKey),
		Issuer:   "switchboard-relay",
		Audience: "switchboard",
	})

	token, err := signer.Mint("ann", time.Hour)
	if err != nil {
		panic(err)
	}
	claims, err := verifier.Verify(token)
	fmt.Println(claims.Subject, claims.Issuer, err)

	_, err = verifier.Verify(token + "x")
	fmt.Println(err)
	// Output:
	// ann switchboard-relay <nil>
	// verify token: token signature invalid
}
