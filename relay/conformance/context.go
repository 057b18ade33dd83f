package conformance

import (
	"encoding/json"
	"fmt"
)

// Context is the part of MCP_CONFORMANCE_CONTEXT the scenarios use: the
// client of auth/pre-registration and of the machine access scenarios
// (client id, and a secret or a private key), and the identity provider of
// cross-app access. Other members are ignored.
type Context struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	// The enterprise identity provider of cross-app access: the relay's
	// client there, the user's ID token from single sign-on, and where to
	// exchange it.
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// ParseContext reads MCP_CONFORMANCE_CONTEXT; empty means no context.
func ParseContext(raw string) (Context, error) {
	var c Context
	if raw == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return Context{}, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	return c, nil
}
