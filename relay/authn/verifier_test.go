package authn_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

// verifiers returns Verifiers for the relay key plus host keys loaded from a
// PEM file (Ed25519 and RSA, no kid) and from a JWKS (kids "ed" and "rsa").
func verifiers(t *testing.T, now func() time.Time) (pemV, jwksV *authn.Verifier) {
	t.Helper()
	pemKeys, err := authn.LoadHostKeys(writeFile(t, "host.pem", publicPEM(t, hostEdKey().Public(), hostRSA().Public())))
	if err != nil {
		t.Fatal(err)
	}
	jwksKeys, err := authn.LoadHostKeys(writeFile(t, "host.json", jwksJSON(t,
		jwkEd25519("ed", hostEdKey().Public().(ed25519.PublicKey)),
		jwkRSA("rsa", &hostRSA().PublicKey),
	)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := authn.VerifierConfig{
		RelayKey:   relayKey().Public().(ed25519.PublicKey),
		Issuer:     relayIssuer,
		Audience:   relayAudience,
		HostIssuer: hostIssuer,
		Now:        now,
	}
	cfg.HostKeys = pemKeys
	pemV = authn.NewVerifier(cfg)
	cfg.HostKeys = jwksKeys
	jwksV = authn.NewVerifier(cfg)
	return pemV, jwksV
}

// verifyCase is a token shown to a verifier, and either the subject and
// issuer it is accepted with or the error it is refused with.
type verifyCase struct {
	name     string
	verifier *authn.Verifier
	token    string
	wantSub  string
	wantIss  string
	wantErr  error
}

// hostClaimsWith returns host claims at now changed by edit.
func hostClaimsWith(now time.Time, edit func(jwt.MapClaims)) jwt.MapClaims {
	c := hostClaims(now)
	edit(c)
	return c
}

// acceptedTokens are the tokens pemV and jwksV accept at now: the relay's
// own and the host's, signed by each kind of key, with claims at the edge of
// what passes.
func acceptedTokens(t *testing.T, now time.Time, pemV, jwksV *authn.Verifier) []verifyCase {
	t.Helper()
	relay := authn.NewSigner(relayKey(), relayIssuer, relayAudience)
	mint := func(sub string, ttl time.Duration) string {
		tok, err := relay.Mint(sub, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	// with returns host claims changed by edit.
	with := func(edit func(jwt.MapClaims)) jwt.MapClaims { return hostClaimsWith(now, edit) }
	valid := sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "")
	return []verifyCase{
		{"relay token", pemV, mint("ann", time.Hour), "ann", relayIssuer, nil},
		{"host Ed25519 token from PEM keys", pemV, valid, "ann", hostIssuer, nil},
		{"host RS256 token from PEM keys", pemV, sign(t, jwt.SigningMethodRS256, hostRSA(), hostClaims(now), ""), "ann", hostIssuer, nil},
		{"host PS512 token from PEM keys", pemV, sign(t, jwt.SigningMethodPS512, hostRSA(), hostClaims(now), ""), "ann", hostIssuer, nil},
		{"host RS256 token from JWKS by kid", jwksV, sign(t, jwt.SigningMethodRS256, hostRSA(), hostClaims(now), "rsa"), "ann", hostIssuer, nil},
		{"host Ed25519 token from JWKS by kid", jwksV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "ed"), "ann", hostIssuer, nil},
		{"host token from JWKS without kid", jwksV, sign(t, jwt.SigningMethodRS384, hostRSA(), hostClaims(now), ""), "ann", hostIssuer, nil},
		{"host token with a kid against PEM keys", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "any"), "ann", hostIssuer, nil},
		{"audience among several", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["aud"] = []string{"other", relayAudience} }), ""), "ann", hostIssuer, nil},
		{"nbf within leeway", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["nbf"] = now.Add(10 * time.Second).Unix() }), ""), "ann", hostIssuer, nil},
		{"exp just past but within leeway", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["exp"] = now.Add(-10 * time.Second).Unix() }), ""), "ann", hostIssuer, nil},
	}
}

// refusedTokens are the tokens pemV and jwksV refuse at now, each with the
// error that says why: out of date, for someone else, from someone else,
// under the wrong key or algorithm, tampered with, about a bad subject, or
// not a token.
func refusedTokens(t *testing.T, now time.Time, pemV, jwksV *authn.Verifier) []verifyCase {
	t.Helper()
	// with returns host claims changed by edit.
	with := func(edit func(jwt.MapClaims)) jwt.MapClaims { return hostClaimsWith(now, edit) }
	relayClaims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		return with(func(c jwt.MapClaims) { c["iss"] = relayIssuer; edit(c) })
	}
	keep := func(jwt.MapClaims) {}
	rsaPubPEM := publicPEM(t, hostRSA().Public())
	relayPub := relayKey().Public().(ed25519.PublicKey)
	relayPubDER, err := x509.MarshalPKIXPublicKey(relayPub)
	if err != nil {
		t.Fatal(err)
	}
	relayPubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: relayPubDER})
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, relayClaims(keep)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	valid := sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "") // the token tampered with
	parts := strings.Split(valid, ".")
	forged := `{"iss":"` + hostIssuer + `","aud":"` + relayAudience + `","sub":"root","exp":` + strconv.FormatInt(now.Add(time.Hour).Unix(), 10) + `}`
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]
	return []verifyCase{
		{"expired host token", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() }), ""), "", "", authn.ErrTokenExpired},
		{"nbf beyond leeway", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["nbf"] = now.Add(5 * time.Minute).Unix() }), ""), "", "", authn.ErrTokenNotYetValid},
		{"iat in the future beyond leeway", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["iat"] = now.Add(5 * time.Minute).Unix() }), ""), "", "", authn.ErrTokenNotYetValid},
		{"missing exp", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { delete(c, "exp") }), ""), "", "", authn.ErrMissingExpiry},
		{"wrong audience", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["aud"] = "someone-else" }), ""), "", "", authn.ErrWrongAudience},
		{"missing audience", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { delete(c, "aud") }), ""), "", "", authn.ErrWrongAudience},
		{"wrong issuer", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }), ""), "", "", authn.ErrWrongIssuer},
		{"missing issuer", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { delete(c, "iss") }), ""), "", "", authn.ErrWrongIssuer},
		{"host key claiming the relay issuer", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), relayClaims(keep), ""), "", "", authn.ErrBadSignature},
		{"wrong key for relay issuer", pemV, sign(t, jwt.SigningMethodEdDSA, newEd25519(), relayClaims(keep), ""), "", "", authn.ErrBadSignature},
		{"wrong key for host issuer", pemV, sign(t, jwt.SigningMethodEdDSA, newEd25519(), hostClaims(now), ""), "", "", authn.ErrBadSignature},
		{"tampered payload", pemV, tampered, "", "", authn.ErrBadSignature},
		{"alg none", pemV, none, "", "", authn.ErrAlgorithmNotAllowed},
		{"HS256 keyed with the RSA public key PEM", pemV, sign(t, jwt.SigningMethodHS256, rsaPubPEM, hostClaims(now), ""), "", "", authn.ErrAlgorithmNotAllowed},
		{"HS256 keyed with the RSA public key PEM, JWKS kid", jwksV, sign(t, jwt.SigningMethodHS256, rsaPubPEM, hostClaims(now), "rsa"), "", "", authn.ErrAlgorithmNotAllowed},
		{"HS256 keyed with the relay Ed25519 key bytes", pemV, sign(t, jwt.SigningMethodHS256, []byte(relayPub), relayClaims(keep), ""), "", "", authn.ErrAlgorithmNotAllowed},
		{"HS256 keyed with the relay Ed25519 key PEM", pemV, sign(t, jwt.SigningMethodHS256, relayPubPEM, relayClaims(keep), ""), "", "", authn.ErrAlgorithmNotAllowed},
		{"RS256 header against the Ed25519 relay key", pemV, sign(t, jwt.SigningMethodRS256, hostRSA(), relayClaims(keep), ""), "", "", authn.ErrAlgorithmNotAllowed},
		{"RSA signature under the Ed25519 kid", jwksV, sign(t, jwt.SigningMethodRS256, hostRSA(), hostClaims(now), "ed"), "", "", authn.ErrAlgorithmNotAllowed},
		{"EdDSA under the RSA kid", jwksV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "rsa"), "", "", authn.ErrAlgorithmNotAllowed},
		{"ES256 is not accepted", pemV, "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.e30.AAAA", "", "", authn.ErrAlgorithmNotAllowed},
		{"unknown kid", jwksV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(now), "nope"), "", "", authn.ErrUnknownKey},
		{"kid not a string", jwksV, signKidNumber(t, hostClaims(now)), "", "", authn.ErrMalformedToken},
		{"empty sub", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["sub"] = "" }), ""), "", "", authn.ErrBadSubject},
		{"missing sub", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { delete(c, "sub") }), ""), "", "", authn.ErrBadSubject},
		{"sub with a control character", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["sub"] = "ann\x1b[2J" }), ""), "", "", authn.ErrBadSubject},
		{"sub with a bidi override", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["sub"] = "ann\u202egpj" }), ""), "", "", authn.ErrBadSubject},
		{"sub over 200 bytes", pemV, sign(t, jwt.SigningMethodEdDSA, hostEdKey(), with(func(c jwt.MapClaims) { c["sub"] = strings.Repeat("a", 201) }), ""), "", "", authn.ErrBadSubject},
		{"not a JWT", pemV, "not-a-token", "", "", authn.ErrMalformedToken},
		{"oversized", pemV, strings.Repeat("a", 9000), "", "", authn.ErrMalformedToken},
	}
}

func TestVerify(t *testing.T) {
	now := time.Now()
	pemV, jwksV := verifiers(t, func() time.Time { return now })
	tests := append(acceptedTokens(t, now, pemV, jwksV), refusedTokens(t, now, pemV, jwksV)...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.verifier.Verify(tt.token)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if got.Subject != tt.wantSub || got.Issuer != tt.wantIss || !got.Expires.After(now.Add(-time.Minute)) {
					t.Errorf("claims = %+v, want sub %q iss %q and an expiry", got, tt.wantSub, tt.wantIss)
				}
				wantUser := tt.wantSub // the relay's own users
				if tt.wantIss == hostIssuer {
					wantUser = authn.HostUserPrefix + tt.wantSub // an embedding site's users never collide with them
				}
				if got.User != wantUser {
					t.Errorf("user %q, want %q", got.User, wantUser)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Verify error = %v, want %v", err, tt.wantErr)
			}
			if got != (authn.Claims{}) {
				t.Errorf("refused token still gave claims %+v", got)
			}
			for _, part := range strings.Split(tt.token, ".") {
				if len(part) > 8 && strings.Contains(err.Error(), part) {
					t.Errorf("error %q quotes the token", err)
				}
			}
		})
	}
}

// signKidNumber signs a host token whose kid header is a number.
func signKidNumber(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["kid"] = 7
	s, err := tok.SignedString(hostEdKey())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRelayTokenExpiresAfterItsTTL(t *testing.T) {
	signer := authn.NewSigner(relayKey(), relayIssuer, relayAudience)
	tok, err := signer.Mint("ann", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		after   time.Duration
		wantErr error
	}{
		{59 * time.Minute, nil},
		{time.Hour + 10*time.Second, nil}, // within the default 30s leeway
		{time.Hour + time.Minute, authn.ErrTokenExpired},
	} {
		at := time.Now().Add(tt.after)
		v := authn.NewVerifier(authn.VerifierConfig{
			RelayKey: relayKey().Public().(ed25519.PublicKey),
			Issuer:   relayIssuer, Audience: relayAudience,
			Now: func() time.Time { return at },
		})
		if _, err := v.Verify(tok); !errors.Is(err, tt.wantErr) && (err != nil || tt.wantErr != nil) {
			t.Errorf("after %v: error = %v, want %v", tt.after, err, tt.wantErr)
		}
	}
}

func TestVerifierWithoutHostKeysRefusesHostTokens(t *testing.T) {
	v := authn.NewVerifier(authn.VerifierConfig{
		RelayKey: relayKey().Public().(ed25519.PublicKey),
		Issuer:   relayIssuer, Audience: relayAudience,
		HostIssuer: hostIssuer,
	})
	tok := sign(t, jwt.SigningMethodEdDSA, hostEdKey(), hostClaims(time.Now()), "")
	if _, err := v.Verify(tok); !errors.Is(err, authn.ErrWrongIssuer) {
		t.Errorf("error = %v, want ErrWrongIssuer", err)
	}
}

func TestMintRefusesBadSubjectAndTTL(t *testing.T) {
	signer := authn.NewSigner(relayKey(), relayIssuer, relayAudience)
	for _, tt := range []struct {
		sub string
		ttl time.Duration
	}{
		{"", time.Hour},
		{"a\nb", time.Hour},
		{"ann", 0},
		{"ann", -time.Second},
	} {
		if _, err := signer.Mint(tt.sub, tt.ttl); err == nil {
			t.Errorf("Mint(%q, %v) succeeded", tt.sub, tt.ttl)
		}
	}
}

func TestMintedTokensHaveDistinctIDs(t *testing.T) {
	signer := authn.NewSigner(relayKey(), relayIssuer, relayAudience)
	seen := map[string]bool{}
	for range 3 {
		tok, err := signer.Mint("ann", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		var c jwt.RegisteredClaims
		if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
			t.Fatal(err)
		}
		if c.ID == "" || seen[c.ID] || c.IssuedAt == nil {
			t.Errorf("jti %q (seen before: %v), iat %v", c.ID, seen[c.ID], c.IssuedAt)
		}
		seen[c.ID] = true
	}
}
