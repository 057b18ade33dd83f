package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Sampling with a model. A [Drafter] (relay/model's client of an
// OpenAI-compatible endpoint) writes a draft of a sampling answer when the
// person asks for one in a card ([wire.OpDraftAsk]), and answers the
// server's sampling requests by itself for the servers a person set to
// [wire.SamplingModel]. Nothing reaches the model otherwise.

// howToConfigureModel says how to give the relay a model.
const howToConfigureModel = "start the relay with --model-url and --model-name, and the key in SWITCHBOARD_MODEL_KEY or --model-key-file"

// Drafter writes sampling answers with a model.
type Drafter interface {
	// Name names the model.
	Name() string
	// Draft writes the answer to req. Its errors are [*wire.Error]s fit for
	// a dashboard: sanitized, without the endpoint's key.
	Draft(ctx context.Context, req *wire.SamplingRequest) (wire.SamplingResult, error)
}

func (m *Manager) currentDrafter() Drafter { return m.drafter }

// draft asks the model for a draft answer to the pending sampling ask id.
func (s *Session) draft(ctx context.Context, id string) (any, error) {
	a, ok := s.broker.Get(id)
	switch {
	case !ok:
		return nil, wire.NewError(wire.CodeNotFound, "no such ask: it was answered, timed out or withdrawn")
	case a.Kind != wire.AskSampling || a.Sampling == nil:
		return nil, wire.NewError(wire.CodeBadRequest, "only a sampling request can be drafted with a model")
	}
	d := s.m.currentDrafter()
	if d == nil {
		return nil, wire.NewError(wire.CodeNotConfigured, "no model is configured: "+howToConfigureModel)
	}
	res, err := d.Draft(ctx, a.Sampling)
	if err != nil {
		return nil, draftError(err)
	}
	return res, nil
}

// maxModelAnswers caps the sampling requests the model answers at once for
// one user's servers in model mode: no card stands between a server and
// the model there, so without it a server could spend the model's key on
// as many requests as it sends at once.
const maxModelAnswers = 4

// byModel answers a sampling request with the model, without a card.
func (a serverAsker) byModel(ctx context.Context, req *wire.SamplingRequest) (conn.Answer, error) {
	select {
	case a.modelSlots <- struct{}{}:
		defer func() { <-a.modelSlots }()
	default:
		return conn.Answer{}, wire.NewError(wire.CodeBadRequest,
			fmt.Sprintf("the model is already answering %d sampling requests; send this one when one of them is done", maxModelAnswers))
	}
	res, err := a.drafter.Draft(ctx, req)
	if err != nil {
		return conn.Answer{}, draftError(err)
	}
	res, err = broker.CheckSamplingResult(req, nil, res)
	if err != nil {
		var we *wire.Error
		errors.As(err, &we)
		return conn.Answer{}, wire.NewError(wire.CodeUpstream, "the model's answer does not fit the request: "+we.Message)
	}
	return conn.Answer{Action: wire.ActionAccept, Sampling: &res}, nil
}

// draftError is a drafter's error as the dashboard and the server see it.
func draftError(err error) error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return wire.NewError(wire.CodeUpstream, "the model failed")
}
