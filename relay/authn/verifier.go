package authn

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	// defaultLeeway is the clock skew allowed on exp, nbf and iat.
	defaultLeeway = 30 * time.Second
	// maxTokenBytes bounds a token before any parsing.
	maxTokenBytes = 8 << 10
	// headerKid is the JOSE header naming the signing key.
	headerKid = "kid"
	// headerAlg is the JOSE header naming the algorithm.
	headerAlg = "alg"
)

// VerifierConfig says which tokens a Verifier accepts.
type VerifierConfig struct {
	// RelayKey verifies the relay's own tokens, whose iss is Issuer.
	RelayKey ed25519.PublicKey
	// Issuer and Audience are the relay's own; every token's aud must
	// contain Audience.
	Issuer   string
	Audience string
	// HostKeys verify tokens of an embedding host site, whose iss is
	// HostIssuer. Either may be empty to accept no host tokens.
	HostKeys   *KeySet
	HostIssuer string
	// Leeway is the allowed clock skew; zero means 30s.
	Leeway time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Claims is what the relay needs from a verified token.
type Claims struct {
	Subject string
	Issuer  string
	Expires time.Time
	// User is the id under which the relay keeps this user's state: the
	// subject of the relay's own tokens, and HostUserPrefix + subject for
	// tokens an embedding site minted, so that a site cannot name one of the
	// relay's own users (the local user, say) and open that user's servers.
	User string
	// Agent is set when the token stands for an agent (see [AgentClaim]).
	Agent *Agent
}

// HostUserPrefix starts the user id of every user an embedding site vouches for.
const HostUserPrefix = "host:"

// Verifier checks tokens against a VerifierConfig. It is safe for concurrent
// use.
type Verifier struct {
	cfg    VerifierConfig
	parser *jwt.Parser
}

// NewVerifier returns a Verifier for cfg, filling in defaults.
func NewVerifier(cfg VerifierConfig) *Verifier {
	if cfg.Leeway == 0 {
		cfg.Leeway = defaultLeeway
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods(allAlgs),
		jwt.WithExpirationRequired(),
		jwt.WithAudience(cfg.Audience),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithTimeFunc(cfg.Now),
	)
	return &Verifier{cfg: cfg, parser: parser}
}

// Verify checks token's signature and claims and returns its claims. The
// error wraps one of the Err* reasons of this package. A token that stands
// for an agent ([AgentClaim]) is refused: it opens no dashboard; see
// [Verifier.VerifyAgent].
func (v *Verifier) Verify(token string) (Claims, error) {
	c, err := v.verify(token)
	if err == nil && c.Agent != nil {
		return Claims{}, fmt.Errorf("verify token: %w", ErrAgentToken)
	}
	return c, err
}

// verify checks token's signature and claims, agent claim included.
func (v *Verifier) verify(token string) (Claims, error) {
	if len(token) > maxTokenBytes {
		return Claims{}, fmt.Errorf("verify token: %w: longer than %d bytes", ErrMalformedToken, maxTokenBytes)
	}
	var tc tokenClaims
	rc := &tc.RegisteredClaims
	tok, err := v.parser.ParseWithClaims(token, &tc, v.keyFor)
	if err != nil {
		return Claims{}, fmt.Errorf("verify token: %w", reason(tok, rc, err))
	}
	if err := checkSubject(rc.Subject); err != nil {
		return Claims{}, fmt.Errorf("verify token: %w", err)
	}
	if err := checkAgent(tc.Agent); err != nil {
		return Claims{}, fmt.Errorf("verify token: %w: %w", ErrMalformedToken, err)
	}
	c := Claims{Subject: rc.Subject, Issuer: rc.Issuer, Expires: rc.ExpiresAt.Time, User: rc.Subject, Agent: tc.Agent}
	if rc.Issuer != v.cfg.Issuer { // keyFor accepted it as the host issuer's
		c.User = HostUserPrefix + rc.Subject
	}
	return c, nil
}

// keyFor picks the keys that may verify tok: the relay key for the relay's
// issuer, the host keys for the host issuer, each only for its algorithms.
func (v *Verifier) keyFor(tok *jwt.Token) (any, error) {
	iss, err := tok.Claims.GetIssuer()
	if err != nil {
		return nil, ErrMalformedToken
	}
	alg := tok.Method.Alg()
	var keys []jwt.VerificationKey
	var refusal error
	known := false
	if v.cfg.Issuer != "" && iss == v.cfg.Issuer && v.cfg.RelayKey != nil {
		known = true
		if slices.Contains(ed25519Algs, alg) {
			keys = append(keys, v.cfg.RelayKey)
		} else {
			refusal = ErrAlgorithmNotAllowed
		}
	}
	if v.cfg.HostIssuer != "" && iss == v.cfg.HostIssuer && v.cfg.HostKeys != nil {
		known = true
		kid, ok := tok.Header[headerKid].(string)
		if _, present := tok.Header[headerKid]; present && !ok {
			return nil, ErrMalformedToken
		}
		host, err := v.cfg.HostKeys.candidates(kid, alg)
		if err != nil && refusal == nil {
			refusal = err
		}
		keys = append(keys, host...)
	}
	switch {
	case !known:
		return nil, ErrWrongIssuer
	case len(keys) == 0:
		return nil, refusal
	}
	return jwt.VerificationKeySet{Keys: keys}, nil
}

// ownReasons are the errors keyFor returns, passed through as they are.
var ownReasons = []error{ErrMalformedToken, ErrWrongIssuer, ErrAlgorithmNotAllowed, ErrUnknownKey}

// reason maps a parse error to this package's reasons, without the token.
func reason(tok *jwt.Token, rc *jwt.RegisteredClaims, err error) error {
	if errors.Is(err, jwt.ErrTokenMalformed) {
		return ErrMalformedToken
	}
	if tok != nil {
		// The parser reports an algorithm outside WithValidMethods as an
		// invalid signature; name it for what it is.
		if alg, _ := tok.Header[headerAlg].(string); !slices.Contains(allAlgs, alg) {
			return ErrAlgorithmNotAllowed
		}
	}
	for _, r := range ownReasons {
		if errors.Is(err, r) {
			return r
		}
	}
	switch {
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return ErrBadSignature
	case errors.Is(err, jwt.ErrTokenExpired):
		return ErrTokenExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return ErrTokenNotYetValid
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return ErrWrongAudience
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && rc.ExpiresAt == nil:
		return ErrMissingExpiry
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		// aud is the other claim the parser requires.
		return ErrWrongAudience
	}
	return fmt.Errorf("%w: %v", ErrMalformedToken, err)
}
