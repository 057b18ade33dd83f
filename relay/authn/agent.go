package authn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// AgentClaim is the claim by which an embedding site's token stands for one
// of its user's agents rather than the user's browser. Its value is the
// agent's name, or an object that also narrows what the agent may reach:
//
//	"switchboard_agent": "report-bot"
//	"switchboard_agent": {"name": "report-bot", "servers": ["3f2a…"], "tools": ["3f2a…__search"]}
//
// Without servers (or tools) the agent reaches all of the user's servers
// (or tools).
const AgentClaim = "switchboard_agent"

// maxAgentName bounds the agent's name in the claim.
const maxAgentName = 100

// Agent is a verified [AgentClaim].
type Agent struct {
	Name    string   `json:"name"`
	Servers []string `json:"servers,omitempty"` // nil for all
	Tools   []string `json:"tools,omitempty"`   // nil for all
}

// UnmarshalJSON accepts the claim's two shapes: a name, or an object.
func (a *Agent) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"`)) {
		return json.Unmarshal(b, &a.Name)
	}
	type plain Agent
	return json.Unmarshal(b, (*plain)(a))
}

// tokenClaims are the claims a token is parsed into.
type tokenClaims struct {
	jwt.RegisteredClaims
	Agent *Agent `json:"switchboard_agent,omitempty"`
}

// ErrAgentToken is why [Verifier.Verify] refuses a token that stands for an
// agent, and [Verifier.VerifyAgent] one that does not.
var ErrAgentToken = errors.New("an agent's token is not a person's, nor the reverse")

// VerifyAgent checks a token that stands for an agent: like
// [Verifier.Verify], and it must carry the [AgentClaim].
func (v *Verifier) VerifyAgent(token string) (Claims, error) {
	c, err := v.verify(token)
	if err == nil && c.Agent == nil {
		return Claims{}, fmt.Errorf("verify agent token: %w", ErrAgentToken)
	}
	return c, err
}

// errBadAgent is a malformed agent claim.
var errBadAgent = errors.New("the agent claim needs a name of 1 to 100 printable characters")

// checkAgent validates a parsed claim.
func checkAgent(a *Agent) error {
	if a == nil {
		return nil
	}
	if len(a.Name) > maxAgentName || checkSubject(a.Name) != nil {
		return errBadAgent
	}
	return nil
}
