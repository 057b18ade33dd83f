package session

import (
	"context"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Attribution. A server's request for a person raised during a call is
// attributed to the call by the connection ([conn.OperationOf] gives the
// context of the operation it belongs to, which carries the call). The
// session's asker then labels the ask with the agent whose call it is (a
// person's own calls need no label), notes that the call asked a person,
// tells the agent ([Agent.Note]), and may offer to forward a sampling
// request to the agent's own client (forward.go). The ask's context ends
// with the call's: cancelling a call withdraws what it asked.

// AskNote is what became of an ask a call raised.
type AskNote int

// Ask notes.
const (
	AskShown    AskNote = iota // put before a person
	AskSettled                 // answered, or withdrawn
	AskTimedOut                // nobody answered before the deadline
)

// maxLabelRunes caps each label of an ask.
const maxLabelRunes = 256

// callOf returns the call a server request asked under ctx was attributed
// to, or nil.
func callOf(ctx context.Context) *runningCall {
	op, ok := conn.OperationOf(ctx)
	if !ok {
		return nil
	}
	rc, _ := op.Value(callKey{}).(*runningCall)
	return rc
}

// onBehalf labels ask, asked under ctx, with the agent of the call it was
// attributed to, notes that the call asked, and returns the call (nil when
// none) and the function that tells, once the ask is settled, whether it
// timed out.
func onBehalf(ctx context.Context, ask *wire.Ask) (*runningCall, func(timedOut bool)) {
	rc := callOf(ctx)
	if rc == nil {
		return nil, func(bool) {}
	}
	a := rc.caller.Agent
	if a != nil {
		ask.Agent = wire.Sanitize(a.Name, maxLabelRunes)
		ask.Tool = wire.Sanitize(rc.name, maxLabelRunes)
		ask.Call = wire.Sanitize(a.Label, maxLabelRunes)
		ask.Chat = a.Chat
	}
	rc.o.s.mu.Lock()
	rc.asked = true
	rc.o.s.mu.Unlock()
	rc.note(AskShown)
	return rc, func(timedOut bool) {
		if !timedOut {
			rc.note(AskSettled)
			return
		}
		rc.o.s.mu.Lock()
		rc.timedOut = true
		rc.o.s.mu.Unlock()
		rc.note(AskTimedOut)
	}
}

// note tells the agent whose call rc is what became of an ask, if it
// listens.
func (rc *runningCall) note(n AskNote) {
	if a := rc.caller.Agent; a != nil && a.Note != nil {
		a.Note(n)
	}
}

// sampler is the agent's own client of rc's caller, if any.
func (rc *runningCall) sampler() *AgentSampler {
	if rc == nil || rc.caller.Agent == nil {
		return nil
	}
	return rc.caller.Agent.Sampler
}
