package oauthfixture

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
)

// registration is the part of an RFC 7591 request the server reads.
type registration struct {
	RedirectURIs []string `json:"redirect_uris"`
	AuthMethod   string   `json:"token_endpoint_auth_method"`
	ClientName   string   `json:"client_name"`
}

// serveRegister registers a client dynamically (RFC 7591). A requested
// authentication method the server does not support is replaced by its
// first one; a secret is issued unless the method is none.
func (a *AuthServer) serveRegister(w http.ResponseWriter, r *http.Request) {
	var reg registration
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFormBytes)).Decode(&reg); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not JSON client metadata")
		return
	}
	if len(reg.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range reg.RedirectURIs {
		if p, err := url.Parse(u); err != nil || !p.IsAbs() {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris must be absolute URLs")
			return
		}
	}
	method := reg.AuthMethod
	if !slices.Contains(a.cfg.AuthMethods, method) {
		method = a.cfg.AuthMethods[0]
	}
	c := &Client{ID: random("client"), RedirectURIs: reg.RedirectURIs, Method: method}
	if method != MethodNone {
		c.Secret = random("secret")
	}
	a.mu.Lock()
	a.clients[c.ID] = c
	a.stats.Registrations++
	if c.Secret != "" {
		a.secrets = append(a.secrets, c.Secret)
	}
	a.mu.Unlock()
	answer := map[string]any{
		"client_id":                  c.ID,
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": method,
		"client_name":                reg.ClientName,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	}
	if c.Secret != "" {
		answer["client_secret"] = c.Secret
	}
	writeJSON(w, http.StatusCreated, answer)
}
