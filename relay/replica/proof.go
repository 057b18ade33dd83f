package replica

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

// Header carries the proof that a replica forwarded a request.
const Header = "Switchboard-Replica"

// audience is the audience of proofs, which no other token of the relay has:
// a proof opens nothing on the public listener, a session token nothing on
// the internal one.
const audience = "switchboard-replica"

// proofTTL bounds a forwarded HTTP request's proof.
const proofTTL = time.Minute

// Proofs mints and checks proofs with the key every replica shares (the
// relay key in the store).
type Proofs struct {
	signer   *authn.Signer
	verifier *authn.Verifier
}

// NewProofs returns proofs signed with key under issuer.
func NewProofs(key ed25519.PrivateKey, issuer string) *Proofs {
	return &Proofs{
		signer:   authn.NewSigner(key, issuer, audience),
		verifier: authn.NewVerifier(authn.VerifierConfig{RelayKey: key.Public().(ed25519.PublicKey), Issuer: issuer, Audience: audience}),
	}
}

// mint vouches for a request of user until ttl from now.
func (p *Proofs) mint(user string, ttl time.Duration) (string, error) {
	return p.signer.Mint(user, ttl)
}

type forwardedKey struct{}

// Forwarded returns, for a request a replica forwarded, the user the
// replica routed it for and until when its proof holds (a dashboard's
// socket: until its token expires).
func Forwarded(ctx context.Context) (authn.Claims, bool) {
	c, ok := ctx.Value(forwardedKey{}).(authn.Claims)
	return c, ok
}

// Internal serves, on a replica's internal address, the requests other
// replicas forward, and refuses every other one.
func (p *Proofs) Internal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, err := p.verifier.Verify(r.Header.Get(Header))
		if err != nil {
			http.Error(w, fmt.Sprintf("forbidden: only replicas may use this address (%v)", err), http.StatusForbidden)
			return
		}
		r.Header.Del(Header)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), forwardedKey{}, claims)))
	})
}
