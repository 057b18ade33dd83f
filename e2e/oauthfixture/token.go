package oauthfixture

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// serveToken answers the authorization_code and refresh_token grants, and
// the machine grants when configured (machine.go).
func (a *AuthServer) serveToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	f := r.PostForm
	rec := TokenRequest{GrantType: f.Get("grant_type"), Resource: f.Get("resource"), Scope: f.Get("scope")}
	status, code, description := a.token(w, r, f, &rec)
	rec.Error = code
	a.mu.Lock()
	a.tokenReqs = append(a.tokenReqs, rec)
	a.mu.Unlock()
	if code != "" {
		oauthError(w, status, code, description)
	}
}

// token serves one token request; it returns the error to answer, if any.
func (a *AuthServer) token(w http.ResponseWriter, r *http.Request, f url.Values, rec *TokenRequest) (int, string, string) {
	clientID, method, ok := a.authenticate(r, f)
	rec.ClientID, rec.AuthMethod = clientID, method
	if !ok {
		return http.StatusUnauthorized, "invalid_client", "client authentication failed"
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var g *grant
	switch rec.GrantType {
	case "authorization_code":
		g = a.codes[f.Get("code")]
		switch {
		case g == nil || g.used || time.Now().After(g.expires):
			return http.StatusBadRequest, "invalid_grant", "unknown, used or expired code"
		case g.clientID != clientID:
			return http.StatusBadRequest, "invalid_grant", "the code was issued to another client"
		case g.redirectURI != f.Get("redirect_uri"):
			return http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request"
		case !verifierMatches(f.Get("code_verifier"), g.challenge):
			return http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge"
		case rec.Resource != g.resource:
			return http.StatusBadRequest, "invalid_target", "resource differs from the authorization request"
		}
		g.used = true
		a.stats.Codes++
	case "refresh_token":
		rt := f.Get("refresh_token")
		g = a.refresh[rt]
		switch {
		case g == nil:
			return http.StatusBadRequest, "invalid_grant", "unknown or revoked refresh token"
		case g.clientID != clientID:
			return http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client"
		case rec.Resource != "" && rec.Resource != g.resource:
			return http.StatusBadRequest, "invalid_target", "resource differs from the grant"
		}
		delete(a.refresh, rt) // rotation: a refresh token is used once
		a.stats.Refreshes++
	case grantClientCredentials, grantJWTBearer:
		var status int
		var code, description string
		if g, status, code, description = a.machineGrant(clientID, method, f, rec); code != "" {
			return status, code, description
		}
	default:
		return http.StatusBadRequest, "unsupported_grant_type", "use authorization_code or refresh_token"
	}
	access := random("at")
	expires := time.Now().Add(a.cfg.TokenLifetime)
	a.access[access] = &grant{clientID: clientID, resource: g.resource, scopes: g.scopes, expires: expires}
	a.secrets = append(a.secrets, access)
	answer := map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int64(a.cfg.TokenLifetime / time.Second),
	}
	if len(g.scopes) > 0 {
		answer["scope"] = strings.Join(g.scopes, " ")
	}
	if !g.noRefresh && (slices.Contains(g.scopes, ScopeOfflineAccess) || !slices.Contains(a.cfg.ScopesSupported, ScopeOfflineAccess)) {
		rt := random("rt")
		a.refresh[rt] = &grant{clientID: clientID, resource: g.resource, scopes: g.scopes}
		a.secrets = append(a.secrets, rt)
		answer["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, answer)
	return 0, "", ""
}

// authenticate finds the client of a token request and checks its
// credentials against its registered method.
func (a *AuthServer) authenticate(r *http.Request, f url.Values) (clientID, method string, ok bool) {
	id, secret, basic := r.BasicAuth()
	switch {
	case f.Get("client_assertion_type") != "":
		id, ok = a.verifyClientAssertion(f)
		return id, MethodPrivateKeyJWT, ok
	case basic:
		method = MethodBasic
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	case f.Get("client_secret") != "":
		method, id, secret = MethodPost, f.Get("client_id"), f.Get("client_secret")
	default:
		method, id = MethodNone, f.Get("client_id")
	}
	a.mu.Lock()
	c, known := a.clients[id]
	a.mu.Unlock()
	if !known {
		// A metadata document client is public.
		return id, method, a.cfg.CIMD && strings.HasPrefix(id, "https://") && method == MethodNone
	}
	if c.Method != method || !slices.Contains(a.cfg.AuthMethods, method) {
		return id, method, false
	}
	return id, method, subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) == 1
}

// verifierMatches checks a PKCE S256 code verifier against its challenge.
func verifierMatches(verifier, challenge string) bool {
	if verifier == "" {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:]) == challenge
}
