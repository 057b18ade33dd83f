package wire

import "time"

// Limits of the agent views.
const (
	MaxLiveAgentCalls = 100 // agent calls kept in a user's state
	MaxAgentKeyName   = 100 // characters of an agent key's name
	MaxAgentKeyTools  = 200 // entries of a key's tool allow-list
)

// AgentKey is an agent's key as the dashboard sees it: never the key itself.
type AgentKey struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	AllServers bool     `json:"allServers,omitempty"`
	Servers    []string `json:"servers,omitempty"` // server ids, when not AllServers
	Tools      []string `json:"tools,omitempty"`   // allowed tools; empty for all
	// ForwardSampling: the person may hand a sampling request raised during
	// this agent's call to the agent's own client ([OpForwardAsk]).
	ForwardSampling bool      `json:"forwardSampling,omitempty"`
	ToolMode        ToolMode  `json:"toolMode,omitempty"`
	Expires         time.Time `json:"expires,omitzero"`
	Created         time.Time `json:"created"`
	LastUsed        time.Time `json:"lastUsed,omitzero"`
	Revoked         time.Time `json:"revoked,omitzero"`
}

// AgentKeysResult is the result of [OpListAgentKeys], oldest key first.
type AgentKeysResult struct {
	Keys []AgentKey `json:"keys"`
}

// CreateAgentKeyArgs are the arguments of [OpCreateAgentKey]. Servers empty
// means all of the user's servers, including ones added later. TTL, when
// positive, is the key's lifetime.
type CreateAgentKeyArgs struct {
	Name    string        `json:"name"`
	Servers []string      `json:"servers,omitempty"`
	Tools   []string      `json:"tools,omitempty"`
	TTL     time.Duration `json:"ttl,omitempty"` // nanoseconds
	// ForwardSampling: see [AgentKey]; off by default.
	ForwardSampling bool `json:"forwardSampling,omitempty"`
	// ToolMode: see [AgentKey]; empty is [ToolModeTools].
	ToolMode ToolMode `json:"toolMode,omitempty"`
}

// ToolMode is how an agent key's agents see the person's tools on the
// aggregate endpoint (/mcp). /mcp/code is code mode whatever the key's.
type ToolMode string

// Tool modes.
const (
	ToolModeTools ToolMode = "tools" // each tool, one by one
	ToolModeCode  ToolMode = "code"  // code mode: search and execute only
	ToolModeBoth  ToolMode = "both"  // each tool, and search and execute
)

// Valid reports whether m is a tool mode.
func (m ToolMode) Valid() bool {
	return m == ToolModeTools || m == ToolModeCode || m == ToolModeBoth
}

// CreateAgentKeyResult is the result of [OpCreateAgentKey].
type CreateAgentKeyResult struct {
	Key    AgentKey `json:"key"`
	Secret string   `json:"secret"` // the bearer key: shown once
}

// AgentKeyArgs name one agent key.
type AgentKeyArgs struct {
	ID string `json:"id"`
}

// Outcome is how an agent call ended.
type Outcome string

// Outcomes of an agent call.
const (
	OutcomeOK        Outcome = "ok"         // the tool returned a result
	OutcomeToolError Outcome = "tool_error" // the tool returned a result marked as an error
	OutcomeFailed    Outcome = "failed"     // the call did not return a result
	OutcomeCancelled Outcome = "cancelled"  // the agent went away or cancelled
	OutcomeDenied    Outcome = "denied"     // the key does not allow the server or tool
	OutcomeTimedOut  Outcome = "timed_out"  // the server asked a person, who did not answer in time
	// OutcomeRunning marks a call still in progress, in the state only: its
	// end replaces it with the logged call.
	OutcomeRunning Outcome = "running"
)

// AgentCall is one call an agent made, as the activity log shows it: never
// its arguments, its result or a person's answer.
type AgentCall struct {
	ID       string    `json:"id"`
	Agent    string    `json:"agent"`
	KeyID    string    `json:"keyId,omitempty"`
	Server   string    `json:"server"` // server id
	Tool     string    `json:"tool"`
	Start    time.Time `json:"start"`
	Duration int64     `json:"durationMs"`
	Outcome  Outcome   `json:"outcome"`
	Asked    bool      `json:"asked,omitempty"` // a person was asked during the call
	// Program is the program of a code-mode execute (the agent's own
	// input), cut to MaxProgramShown; Server is then empty.
	Program string `json:"program,omitempty"`
	ByCode  bool   `json:"byCode,omitempty"` // made by a code-mode program
}

// MaxProgramShown caps the program text an execute is logged with.
const MaxProgramShown = 2000

// ListActivityArgs filter [OpListActivity]; empty fields match all.
type ListActivityArgs struct {
	Agent   string  `json:"agent,omitempty"`
	Server  string  `json:"server,omitempty"`
	Outcome Outcome `json:"outcome,omitempty"`
}

// ActivityResult is the result of [OpListActivity].
type ActivityResult struct {
	Calls []AgentCall `json:"calls"`
}
