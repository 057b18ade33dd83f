package oauth

import (
	"encoding/json"
	"net/http"
)

// metadataDocument is the relay's client ID metadata document
// (draft-ietf-oauth-client-id-metadata-document).
type metadataDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// MetadataHandler serves the relay's client ID metadata document; mount it
// at the path of Config.ClientMetadataURL. The document names that URL as
// the client id, the callback as the only redirect URI, and a public client
// (no secret) using the authorization code and refresh token grants.
func (m *Manager) MetadataHandler() http.Handler {
	doc, _ := json.Marshal(metadataDocument{ // a struct of strings always marshals
		ClientID:                m.cfg.ClientMetadataURL,
		ClientName:              m.cfg.ClientName,
		RedirectURIs:            []string{m.cfg.CallbackURL},
		GrantTypes:              []string{grantAuthorizationCode, grantRefreshToken},
		ResponseTypes:           []string{responseTypeCode},
		TokenEndpointAuthMethod: methodNone,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(doc)
	})
}
