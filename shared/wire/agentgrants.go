package wire

import "time"

// AgentConsentArgs name an authorization waiting for consent.
type AgentConsentArgs struct {
	Request string `json:"request"`
}

// AgentConsent is what the consent card shows. Every text comes from the
// client: render it as text.
type AgentConsent struct {
	ClientName string `json:"clientName"`
	ClientID   string `json:"clientId"`
	// ClientHost is the host the client is identified by: the host of its
	// metadata document when Verified, else of its redirect URI.
	ClientHost string `json:"clientHost"`
	Verified   bool   `json:"verified,omitempty"`
	// RedirectHost is where the browser is sent after the answer.
	RedirectHost string `json:"redirectHost"`
	// Endpoint is the agent endpoint the grant would open.
	Endpoint   string   `json:"endpoint"`
	AllServers bool     `json:"allServers,omitempty"`
	Servers    []string `json:"servers,omitempty"` // server ids requested, when not AllServers
	// Fixed: the endpoint is one server's, so the servers cannot be narrowed.
	Fixed bool `json:"fixed,omitempty"`
	// NameMismatch: the client's name does not look like its host.
	NameMismatch bool `json:"nameMismatch,omitempty"`
	// NewHost: no grant was ever given to a client of this host.
	NewHost bool `json:"newHost,omitempty"`
}

// AnswerAgentConsentArgs answer an authorization. Approving with
// AllServers false and Servers listed narrows the grant to them.
type AnswerAgentConsentArgs struct {
	Request    string   `json:"request"`
	Approve    bool     `json:"approve"`
	AllServers bool     `json:"allServers,omitempty"`
	Servers    []string `json:"servers,omitempty"`
	// ToolMode is how the aggregate endpoint shows the tools to the
	// application; empty is [ToolModeTools].
	ToolMode ToolMode `json:"toolMode,omitempty"`
}

// AnswerAgentConsentResult is where the browser goes next.
type AnswerAgentConsentResult struct {
	Redirect string `json:"redirect"`
}

// AgentGrant is a grant as the dashboard sees it: never a token.
type AgentGrant struct {
	ID         string    `json:"id"`
	ClientName string    `json:"clientName"`
	ClientID   string    `json:"clientId"`
	ClientHost string    `json:"clientHost"`
	Endpoint   string    `json:"endpoint"`
	AllServers bool      `json:"allServers,omitempty"`
	Servers    []string  `json:"servers,omitempty"`
	ToolMode   ToolMode  `json:"toolMode,omitempty"`
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"lastUsed,omitzero"`
	Revoked    time.Time `json:"revoked,omitzero"`
}

// AgentGrantsResult is the result of [OpListAgentGrants], oldest first.
type AgentGrantsResult struct {
	Grants []AgentGrant `json:"grants"`
}

// AgentGrantArgs name one grant.
type AgentGrantArgs struct {
	ID string `json:"id"`
}
