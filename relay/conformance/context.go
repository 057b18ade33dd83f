package conformance

import (
	"encoding/json"
	"fmt"
)

// Context is the part of MCP_CONFORMANCE_CONTEXT the scenarios use: the
// pre-registered client of auth/pre-registration. Other members are ignored.
type Context struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
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
