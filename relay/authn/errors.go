package authn

import "errors"

// Reasons Verify and FromRequest refuse a token. Errors wrap exactly one of
// them; none quotes the token.
var (
	ErrMalformedToken      = errors.New("token malformed")
	ErrAlgorithmNotAllowed = errors.New("token algorithm not allowed for this key")
	ErrWrongIssuer         = errors.New("token issuer not accepted")
	ErrUnknownKey          = errors.New("no host key matches the token's key id")
	ErrBadSignature        = errors.New("token signature invalid")
	ErrTokenExpired        = errors.New("token expired")
	ErrTokenNotYetValid    = errors.New("token not valid yet")
	ErrMissingExpiry       = errors.New("token has no expiry")
	ErrWrongAudience       = errors.New("token audience does not include this relay")
	ErrBadSubject          = errors.New("token subject missing or invalid")
	ErrBadAuthorization    = errors.New("authorization header is not a bearer token")
)
