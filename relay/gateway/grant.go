package gateway

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Grant is what an agent key allows: whose servers, which of them, which
// tools, until when. The gateway checks it on every request, so a grant
// narrowed or revoked takes effect within a live MCP session.
type Grant struct {
	User  string // the person whose servers the key reaches
	Agent string // the agent's name, shown on the asks it raises
	KeyID string // the key's id (never the key itself)
	// Servers are the server ids the key may use; nil means all.
	Servers []string
	// Tools are the tools the key may call, as the aggregate endpoint
	// exposes them ("<server>__<tool>", see names.go) or by their own
	// names; nil means all.
	Tools   []string
	Expires time.Time // zero: no expiry
	// ForwardSampling: a sampling request raised during the agent's call
	// may be handed, on the person's click, to the agent's own client when
	// it declares sampling (see forward.go).
	ForwardSampling bool
	// Resource is the endpoint URL an OAuth grant's tokens are bound to;
	// empty for keys, which reach both endpoints.
	Resource string
}

// Authenticator turns the bearer token of a request into the grant of its
// key. It returns [ErrUnauthorized] (or any error) for an unknown, revoked
// or expired key.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (Grant, error)
}

// ErrUnauthorized is every refusal of a bearer credential. Its message does
// not say which check failed, so that a guesser learns nothing.
var ErrUnauthorized = errors.New("invalid, expired or revoked agent key")

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

// AllowsServer reports whether g reaches server id.
func (g Grant) AllowsServer(id string) bool {
	return g.Servers == nil || slices.Contains(g.Servers, id)
}

// AllowsTool reports whether g may call the tool own of server, exposed
// to agents as exposed: the allow-list names it either way.
func (g Grant) AllowsTool(server, own, exposed string) bool {
	return g.AllowsServer(server) && (g.Tools == nil || slices.Contains(g.Tools, exposed) || slices.Contains(g.Tools, own))
}

// expired reports whether g is past its expiry at now.
func (g Grant) expired(now time.Time) bool {
	return !g.Expires.IsZero() && !now.Before(g.Expires)
}

// sameScope reports whether g and o allow the same things.
func (g Grant) sameScope(o Grant) bool {
	return g.User == o.User && slices.Equal(g.Servers, o.Servers) && slices.Equal(g.Tools, o.Tools) &&
		(g.Servers == nil) == (o.Servers == nil) && (g.Tools == nil) == (o.Tools == nil)
}
