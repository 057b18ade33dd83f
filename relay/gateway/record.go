package gateway

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// CallRecord is the activity record of one agent operation. It never holds
// content: no arguments, no results, no answers.
type CallRecord struct {
	User, Agent, KeyID string
	Server             string // server id
	Kind               string // KindTool, KindPrompt or KindResource
	Name               string // the tool or prompt name, or resource URI, as the server knows it
	Start              time.Time
	Duration           time.Duration
	Outcome            wire.Outcome // one of the Outcome values
	Asked              bool         // the server asked a person during the call
}

// Kinds of operations recorded.
const (
	KindTool     = "tool"
	KindPrompt   = "prompt"
	KindResource = "resource"
)

// Outcomes of recorded operations.
const (
	OutcomeOK        = wire.OutcomeOK        // a result
	OutcomeToolError = wire.OutcomeToolError // a result with isError set
	OutcomeFailed    = wire.OutcomeFailed    // an error (the server's, or the relay's)
	OutcomeCancelled = wire.OutcomeCancelled // the agent cancelled
	OutcomeDenied    = wire.OutcomeDenied    // outside the key's scope
	OutcomeTimedOut  = wire.OutcomeTimedOut  // nobody answered the server's question in time
)

// Recorder keeps the activity records of agent calls. Record must not block
// for long: it runs as the call ends.
type Recorder interface {
	Record(ctx context.Context, c CallRecord)
}

// LiveRecorder is a [Recorder] that also shows calls while they run
// (*Log is one): Started returns the id of the running call shown, which
// Finish replaces with the record.
type LiveRecorder interface {
	Recorder
	Started(c CallRecord) (running string)
	Finish(ctx context.Context, running string, c CallRecord)
}
