package agentauth

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Scopes: what an agent may use.
const (
	// ScopeAll reaches every server of the person, including later ones.
	ScopeAll = "mcp"
	// ScopeServerPrefix + id reaches one server.
	ScopeServerPrefix = "mcp:server:"
	// scopeOffline asks for a refresh token; one is always issued.
	scopeOffline = "offline_access"
)

// serveMetadata serves the Authorization Server Metadata (RFC 8414).
func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	iss := s.Issuer(r)
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         iss + AuthorizePath,
		"token_endpoint":                                 iss + TokenPath,
		"registration_endpoint":                          iss + RegisterPath,
		"revocation_endpoint":                            iss + RevokePath,
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"scopes_supported":                               []string{ScopeAll, scopeOffline},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
	})
}

// serveResourceMetadata serves the Protected Resource Metadata (RFC 9728)
// of the endpoint whose path follows ResourceMetaPath.
func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, ResourceMetaPath)
	scopes := []string{ScopeAll}
	if id, ok := strings.CutPrefix(path, s.cfg.ServerEndpoint); ok {
		scopes = []string{ScopeServerPrefix + id}
	}
	iss := s.Issuer(r)
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 iss + path,
		"authorization_servers":    []string{iss},
		"scopes_supported":         scopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "Switchboard",
	})
}

// writeJSON writes v as a JSON answer that no cache keeps.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// oauthError is an OAuth error answer (RFC 6749 section 5.2).
type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

// fail builds an OAuth error.
func fail(code, description string) *oauthError {
	return &oauthError{Code: code, Description: description}
}

// writeError writes e with status.
func writeError(w http.ResponseWriter, status int, e *oauthError) { writeJSON(w, status, e) }
