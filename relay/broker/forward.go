package broker

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Forwarding. A sampling ask raised during an agent's call may come with a
// [Forward]: the way to have that agent's own client write the answer (see
// shared/wire forward.go). [Broker.Forward], on the person's word, calls it
// and answers the ask with the reply, checked as any answer. While it runs
// the ask stays pending: a person may still answer it, and the first answer
// wins. A failed forward leaves the ask as it was.

// Forward has an agent's client write the answer to a sampling ask. Its
// errors are [*wire.Error]s fit for a dashboard, or ctx's error.
type Forward func(ctx context.Context) (wire.SamplingResult, error)

type forwardKey struct{}

// WithForward returns ctx carrying f, for [Broker.Ask] to keep with the
// sampling ask it is given; the ask must have Forward set.
func WithForward(ctx context.Context, f Forward) context.Context {
	return context.WithValue(ctx, forwardKey{}, f)
}

// setForward keeps the Forward that ctx carries for e, a sampling ask that
// offers forwarding; the ask is shown offering it only then.
func (e *entry) setForward(ctx context.Context) {
	f, _ := ctx.Value(forwardKey{}).(Forward)
	if e.ask.Kind != wire.AskSampling || !e.ask.Forward || f == nil {
		e.ask.Forward = false
		return
	}
	e.forward = f
}

// Errors of [Broker.Forward].
var (
	errNotForwardable = wire.NewError(wire.CodeBadRequest, "this request cannot be handed to an agent: only a sampling request raised during the call of an agent whose key allows it, and whose client declares sampling, can be")
	errForwarding     = wire.NewError(wire.CodeBadRequest, "this request was already handed to the agent: its reply is awaited")
)

// Forward hands the pending sampling ask id to the agent's client and
// answers it with the reply. It returns the ask as it was shown. Errors:
// [wire.CodeNotFound] for an unknown or settled ask, [wire.CodeBadRequest]
// for an ask that cannot be forwarded or is being forwarded, and
// [wire.CodeUpstream] when the client failed or its reply does not fit the
// request; the ask then stays pending.
func (b *Broker) Forward(ctx context.Context, id string) (wire.Ask, error) {
	b.mu.Lock()
	e := b.asks[id]
	switch {
	case e == nil || e.settled:
		b.mu.Unlock()
		return wire.Ask{}, errUnknown
	case e.forward == nil:
		b.mu.Unlock()
		return wire.Ask{}, errNotForwardable
	case e.forwarding:
		b.mu.Unlock()
		return wire.Ask{}, errForwarding
	}
	e.forwarding = true
	a := e.ask
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		e.forwarding = false
		b.mu.Unlock()
	}()

	res, err := e.forward(ctx)
	if err == nil {
		if res.Model == "" {
			res.Model = a.Agent
		}
		res, err = CheckSamplingResult(a.Sampling, e.tools, res)
		var we *wire.Error
		if errors.As(err, &we) {
			err = wire.NewError(wire.CodeUpstream, "the agent's reply does not fit the request: "+we.Message)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case e.settled:
		return wire.Ask{}, errUnknown // answered, withdrawn or timed out meanwhile
	case err != nil:
		b.log.Info("sampling forward failed", "server", a.Server, "ask", id, "error", err)
		return wire.Ask{}, err
	}
	b.settleLocked(e, wire.AnswerAskArgs{Ask: id, Action: wire.ActionAccept, Sampling: &res})
	return a, nil
}
