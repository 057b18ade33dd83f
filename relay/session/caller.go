package session

import (
	"context"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Callers. Every caller of an operation (a person's dashboard, an agent
// through the gateway) may say on whose behalf it runs ([WithCaller]). A
// server's request for a person raised during the operation is attributed
// to it by the connection ([conn.OperationOf]); the session's asker then
// labels the ask with the caller, tells the caller what becomes of it
// ([Caller.Note]), and may offer to forward a sampling request to the
// agent's own client (forward.go).

// Caller says on whose behalf an operation runs: an ask the operation
// raises is labelled with it.
type Caller struct {
	Agent string // the agent's name; "" for a person's own dashboard
	Tool  string // the tool, prompt or resource called, as its server names it
	Call  string // an id of the call for the person (the agent's request id); optional
	// Note, when not nil, hears of the asks the operation raises, from the
	// goroutine that asks; it must not block.
	Note func(AskNote)
	// Sampler, when not nil, is the agent's own client, to which the person
	// may hand a sampling request the operation raises (see forward.go).
	Sampler *AgentSampler
}

// AskNote is what became of an ask an operation raised.
type AskNote int

// Ask notes.
const (
	AskShown    AskNote = iota // put before a person
	AskSettled                 // answered, or withdrawn
	AskTimedOut                // nobody answered before the deadline
)

type callerKey struct{}

// WithCaller returns ctx carrying c: the asks an operation run under it
// raises are labelled with c and withdrawn when ctx ends.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf returns the Caller of ctx, or the zero one.
func callerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// maxLabelRunes caps each label of an ask.
const maxLabelRunes = 256

// note tells the caller what became of an ask, if it listens.
func (c Caller) note(n AskNote) {
	if c.Note != nil {
		c.Note(n)
	}
}

// onBehalf labels ask, asked under ctx, with the caller of the operation
// the connection attributed it to, tells that caller the ask is shown, and
// returns the caller and the function that tells it, once the ask is
// settled, whether it timed out. An ask not attributed has the zero
// caller, who hears nothing.
func onBehalf(ctx context.Context, ask *wire.Ask) (Caller, func(timedOut bool)) {
	op, ok := conn.OperationOf(ctx)
	if !ok {
		return Caller{}, func(bool) {}
	}
	c := callerOf(op)
	ask.Agent = wire.Sanitize(c.Agent, maxLabelRunes)
	ask.Tool = wire.Sanitize(c.Tool, maxLabelRunes)
	ask.Call = wire.Sanitize(c.Call, maxLabelRunes)
	c.note(AskShown)
	return c, func(timedOut bool) {
		if timedOut {
			c.note(AskTimedOut)
		} else {
			c.note(AskSettled)
		}
	}
}
