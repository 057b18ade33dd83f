// Package authn decides who is calling the relay and whether the page that
// made the call may.
//
// Identity is a JWT. The relay mints its own (Signer, EdDSA with the key from
// LoadOrCreateKey) for local use; a host site that embeds the dashboard mints
// tokens with its own keys (LoadHostKeys, PEM or JWKS). A Verifier accepts
// both, pinning the algorithm to the key type, and checks issuer, audience,
// expiry and subject. FromRequest reads the token from the session cookie or
// an Authorization: Bearer header, never from the URL.
//
// A person without a host site logs in with a one-time link: Login.NewCode
// stores a code, and Login serves GET /login?code=..., which trades the code
// for a session cookie once.
//
// OriginPolicy guards the WebSocket (the relay's only state-changing route:
// every change is an op on it) against cross-site use; it fails closed when
// the Origin header is missing.
//
// Tokens and codes never appear in errors or logs.
package authn
