package gateway

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Grant is what an agent's credential lets it do: act for User, as Agent,
// on Servers (nil means all of the user's servers) and Tools (nil means all
// tools), until Expires (zero means no expiry).
type Grant struct {
	User, Agent, KeyID string
	Servers            []string // nil = all
	Tools              []string // nil = all
	Expires            time.Time
}

// Authenticator turns the bearer credential of an agent's request into its
// Grant, or refuses it.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (Grant, error)
}

// CallRecord is one agent call as the activity log keeps it: who called what,
// when, how long it took and how it ended. It never holds the call's
// arguments, its result or a person's answer.
type CallRecord struct {
	User     string
	Agent    string
	KeyID    string
	Server   string // server id
	Tool     string // the tool's name on its server
	Start    time.Time
	Duration time.Duration
	Outcome  wire.Outcome // one of the Outcome* values
	Asked    bool         // a person was asked something during the call
}

// Outcomes of a call, as the activity log names them.
const (
	OutcomeOK        = wire.OutcomeOK
	OutcomeToolError = wire.OutcomeToolError
	OutcomeFailed    = wire.OutcomeFailed
	OutcomeCancelled = wire.OutcomeCancelled
	OutcomeDenied    = wire.OutcomeDenied
)

// Recorder keeps call records.
type Recorder interface {
	Record(ctx context.Context, c CallRecord)
}
