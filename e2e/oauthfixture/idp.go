package oauthfixture

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token exchange of cross-app access (RFC 8693, ID-JAG).
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	// jagLifetime is how long an identity assertion grant is valid.
	jagLifetime = 5 * time.Minute
)

// IdPConfig configures an [IdP].
type IdPConfig struct {
	// ClientID is the relay's client at the identity provider: the
	// audience of the ID tokens it issues, the client of token exchanges.
	ClientID string
	// ResourceClientID is the relay's client id at the resource's
	// authorization server, which the grants name as their client_id.
	ResourceClientID string
}

// Exchange is a token exchange the identity provider received.
type Exchange struct {
	Audience, Resource, Scope string
	Error                     string // the error answered, if any
}

// IdP is a fixture enterprise identity provider: it issues ID tokens to
// test users ([IdP.IDToken]) and exchanges them at its token endpoint for
// identity assertion grants (ID-JAG) addressed to an authorization server,
// which an [AuthServer] with TrustedIdP accepts in the JWT bearer grant.
type IdP struct {
	cfg  IdPConfig
	base string
	key  *ecdsa.PrivateKey
	http *http.Server
	done chan struct{}

	mu        sync.Mutex
	exchanges []Exchange
	jtis      map[string]bool // grants already presented
}

// StartIdP starts an identity provider on a free 127.0.0.1 port and stops
// it when the test ends.
func StartIdP(t testing.TB, cfg IdPConfig) *IdP {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	p := &IdP{cfg: cfg, base: "http://" + ln.Addr().String(), key: key, done: make(chan struct{}), jtis: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", p.serveToken)
	p.http = &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout}
	go func() {
		defer close(p.done)
		p.http.Serve(ln)
	}()
	t.Cleanup(func() {
		p.http.Close()
		<-p.done
	})
	return p
}

// Issuer is the identity provider's issuer identifier.
func (p *IdP) Issuer() string { return p.base }

// TokenEndpoint is where ID tokens are exchanged.
func (p *IdP) TokenEndpoint() string { return p.base + "/token" }

// IDToken returns an ID token of user for the relay's client, valid for
// lifetime (negative: already expired).
func (p *IdP) IDToken(user string, lifetime time.Duration) string {
	now := time.Now()
	claims := jwt.RegisteredClaims{Issuer: p.base, Subject: user, Audience: jwt.ClaimStrings{p.cfg.ClientID},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(lifetime))}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodES256, claims).SignedString(p.key)
	if err != nil {
		panic(err)
	}
	return signed
}

// Exchanges returns the token exchanges received so far.
func (p *IdP) Exchanges() []Exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.exchanges)
}

// jagClaims are the claims of an identity assertion grant.
type jagClaims struct {
	jwt.RegisteredClaims
	ClientID string `json:"client_id"`
	Resource string `json:"resource,omitempty"`
	Scope    string `json:"scope,omitempty"`
}

// serveToken answers token exchanges of a valid ID token for an ID-JAG.
func (p *IdP) serveToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	f := r.PostForm
	ex := Exchange{Audience: f.Get("audience"), Resource: f.Get("resource"), Scope: f.Get("scope")}
	status, code, description := p.exchange(w, r, f)
	ex.Error = code
	p.mu.Lock()
	p.exchanges = append(p.exchanges, ex)
	p.mu.Unlock()
	if code != "" {
		oauthError(w, status, code, description)
	}
}

// exchange serves one token exchange; it returns the error to answer, if any.
func (p *IdP) exchange(w http.ResponseWriter, r *http.Request, f url.Values) (int, string, string) {
	client := f.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok {
		client, _ = url.QueryUnescape(id)
	}
	switch {
	case client != p.cfg.ClientID:
		return http.StatusUnauthorized, "invalid_client", "unknown client"
	case f.Get("grant_type") != grantTokenExchange:
		return http.StatusBadRequest, "unsupported_grant_type", "only token exchange"
	case f.Get("requested_token_type") != tokenTypeIDJAG || f.Get("subject_token_type") != tokenTypeIDToken:
		return http.StatusBadRequest, "invalid_request", "exchange an ID token for an ID-JAG"
	case f.Get("audience") == "" || f.Get("resource") == "":
		return http.StatusBadRequest, "invalid_request", "audience and resource are required"
	}
	var idt jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(f.Get("subject_token"), &idt, verifyES256(p.key), jwt.WithIssuer(p.base),
		jwt.WithAudience(p.cfg.ClientID), jwt.WithExpirationRequired(), jwt.WithValidMethods([]string{"ES256"}))
	if err != nil {
		return http.StatusBadRequest, "invalid_grant", "invalid ID token"
	}
	now := time.Now()
	claims := jagClaims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: p.base, Subject: idt.Subject, Audience: jwt.ClaimStrings{f.Get("audience")},
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(jagLifetime)), ID: rand.Text()},
		ClientID: p.cfg.ResourceClientID, Resource: f.Get("resource"), Scope: f.Get("scope"),
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["typ"] = typIDJAG
	signed, err := tok.SignedString(p.key)
	if err != nil {
		return http.StatusInternalServerError, "server_error", "signing failed"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token":      signed,
		"issued_token_type": tokenTypeIDJAG,
		"token_type":        "N_A",
		"expires_in":        int64(jagLifetime / time.Second),
	})
	return 0, "", ""
}

// checkGrant checks an identity assertion grant presented to the
// authorization server issuer by clientID for resource; it returns why it
// is refused, "" when it is accepted (once: its jti is spent).
func (p *IdP) checkGrant(assertion, issuer, clientID, resource string) string {
	var claims jagClaims
	tok, err := jwt.ParseWithClaims(assertion, &claims, verifyES256(p.key), jwt.WithIssuer(p.base),
		jwt.WithAudience(issuer), jwt.WithExpirationRequired(), jwt.WithLeeway(clockSkew), jwt.WithValidMethods([]string{"ES256"}))
	switch {
	case err != nil:
		return fmt.Sprintf("invalid ID-JAG: %v", err)
	case tok.Header["typ"] != typIDJAG:
		return "the grant is not an ID-JAG"
	case claims.ClientID != clientID:
		return "the ID-JAG was issued for another client"
	case claims.Resource != resource:
		return "the ID-JAG is for another resource"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.jtis[claims.ID] {
		return "the ID-JAG was used already"
	}
	p.jtis[claims.ID] = true
	return ""
}
