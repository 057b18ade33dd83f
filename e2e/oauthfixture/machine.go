package oauthfixture

import (
	"crypto/ecdsa"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Machine grants and client assertions.
const (
	grantClientCredentials = "client_credentials"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	assertionTypeJWT       = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	// typIDJAG is the JWT type of an identity assertion grant.
	typIDJAG = "oauth-id-jag+jwt"
	// clockSkew is the leeway of every JWT check.
	clockSkew = 30 * time.Second
)

// grantTypes lists the grants the server advertises.
func (a *AuthServer) grantTypes() []string {
	grants := []string{"authorization_code", "refresh_token"}
	if a.cfg.ClientCredentials {
		grants = append(grants, grantClientCredentials)
	}
	if a.cfg.TrustedIdP != nil {
		grants = append(grants, grantJWTBearer)
	}
	return grants
}

// machineGrant serves the client credentials grant and the JWT bearer
// grant of cross-app access for the authenticated clientID: a confidential
// client, the resource named, the scopes supported. The caller holds a.mu.
func (a *AuthServer) machineGrant(clientID, method string, f url.Values, rec *TokenRequest) (*grant, int, string, string) {
	scopes := strings.Fields(f.Get("scope"))
	switch {
	case !slices.Contains(a.grantTypes(), rec.GrantType):
		return nil, http.StatusBadRequest, "unsupported_grant_type", "this server does not offer " + rec.GrantType
	case method == MethodNone:
		return nil, http.StatusUnauthorized, "invalid_client", "machine grants need a confidential client"
	case rec.Resource == "":
		return nil, http.StatusBadRequest, "invalid_target", "name the resource"
	case len(a.unsupportedScopes(scopes)) > 0:
		return nil, http.StatusBadRequest, "invalid_scope", "unsupported scope"
	}
	if rec.GrantType == grantJWTBearer {
		if why := a.cfg.TrustedIdP.checkGrant(f.Get("assertion"), a.issuer, clientID, rec.Resource); why != "" {
			return nil, http.StatusBadRequest, "invalid_grant", why
		}
	}
	return &grant{clientID: clientID, resource: rec.Resource, scopes: withheld(scopes, a.cfg.WithheldScopes), noRefresh: true}, 0, "", ""
}

// verifyClientAssertion checks a private_key_jwt client assertion: the
// assertion type, a client registered with MethodPrivateKeyJWT as iss and
// sub, its key's signature, the issuer as audience, and the expiry.
func (a *AuthServer) verifyClientAssertion(f url.Values) (clientID string, ok bool) {
	if f.Get("client_assertion_type") != assertionTypeJWT {
		return "", false
	}
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(f.Get("client_assertion"), &claims, func(t *jwt.Token) (any, error) {
		iss, _ := t.Claims.GetIssuer()
		a.mu.Lock()
		c := a.clients[iss]
		a.mu.Unlock()
		if c == nil || c.Method != MethodPrivateKeyJWT || c.PublicKey == nil {
			return nil, errNoClient
		}
		clientID = iss
		return c.PublicKey, nil
	}, jwt.WithAudience(a.issuer), jwt.WithExpirationRequired(), jwt.WithLeeway(clockSkew),
		jwt.WithValidMethods([]string{"ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"}))
	if err != nil || claims.Subject != clientID || !slices.Contains(a.cfg.AuthMethods, MethodPrivateKeyJWT) {
		return clientID, false
	}
	return clientID, true
}

// verifyES256 returns the key function of tokens signed by key with ES256.
func verifyES256(key *ecdsa.PrivateKey) jwt.Keyfunc {
	return func(*jwt.Token) (any, error) { return &key.PublicKey, nil }
}
