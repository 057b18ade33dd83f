package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Sampling with a model. A [Drafter] (relay/models' drafter, one of the
// operator's models) writes a draft of a sampling answer when the
// person asks for one in a card ([wire.OpDraftAsk]), and answers the
// server's sampling requests by itself for the servers a person set to
// [wire.SamplingModel]. Nothing reaches the model otherwise.

// howToConfigureModel says how to give the relay a model.
const howToConfigureModel = "start the relay with --model name=NAME,url=URL,model=MODEL (or --models FILE, or --model-url and --model-name); --sampling-model chooses the one that drafts"

// Drafter writes sampling answers with a model.
type Drafter interface {
	// Name names the model.
	Name() string
	// Draft writes the answer to req. Its errors are [*wire.Error]s fit for
	// a dashboard: sanitized, without the endpoint's key.
	Draft(ctx context.Context, req *wire.SamplingRequest) (wire.SamplingResult, error)
}

// draft asks the model for a draft answer to the pending sampling ask id.
func (s *Session) draft(ctx context.Context, id string) (any, error) {
	a, ok := s.broker.Get(id)
	switch {
	case !ok:
		return nil, wire.NewError(wire.CodeNotFound, "no such ask: it was answered, timed out or withdrawn")
	case a.Kind != wire.AskSampling || a.Sampling == nil:
		return nil, wire.NewError(wire.CodeBadRequest, "only a sampling request can be drafted with a model")
	}
	d := s.m.drafter
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

// Sample implements [conn.Asker]: the server's sampling request, sanitized
// and capped (relay/mcpwire), is put before the person as a card, or before
// the model in [wire.SamplingModel] mode. The answer becomes the result;
// anything else is a JSON-RPC error, never a made-up message (see
// samplingAnswer).
func (a serverAsker) Sample(ctx context.Context, p *mcp.CreateMessageWithToolsParams, from conn.Origin) (*mcp.CreateMessageWithToolsResult, error) {
	req, err := mcpwire.SamplingRequest(p)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	ask := wire.Ask{Server: a.server, ServerName: a.name, Kind: wire.AskSampling, From: askFrom(from, wire.AskFromSampling), Sampling: req}
	caller, settle := onBehalf(ctx, &ask)
	ctx = offerForward(ctx, &ask, caller.sampler(), p)
	ans, err := a.askSampling(ctx, ask)
	var we *wire.Error
	settle(errors.As(err, &we) && we.Code == wire.CodeCancelled)
	return a.samplingAnswer(ctx, ans, err)
}

// askSampling asks the model, in model mode, or the person.
func (a serverAsker) askSampling(ctx context.Context, ask wire.Ask) (broker.Answer, error) {
	if a.drafter != nil && a.sampling == wire.SamplingModel {
		return a.byModel(ctx, ask.Sampling)
	}
	if a.drafter != nil {
		req := *ask.Sampling
		req.Drafter = a.drafter.Name()
		ask.Sampling = &req
	}
	return a.b.Ask(ctx, ask)
}

// samplingAnswer is the server's answer to a sampling request, asked
// under ctx, that got ans or err:
//   - withdrawn: ctx's error, for nobody waits for the answer;
//   - declined or cancelled: the spec's "user rejected" error (-1);
//   - not answered in time (a [wire.CodeCancelled] error): a request
//     timeout (-32001);
//   - a request the relay cannot show (too large, malformed): invalid
//     params (-32602);
//   - any other failure (the model failed): internal error.
func (a serverAsker) samplingAnswer(ctx context.Context, ans broker.Answer, err error) (*mcp.CreateMessageWithToolsResult, error) {
	var we *wire.Error
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &we) && we.Code == wire.CodeCancelled:
		return nil, &jsonrpc.Error{Code: conn.RPCRequestTimeout, Message: "the sampling request timed out: " + we.Message}
	case errors.As(err, &we) && we.Code == wire.CodeBadRequest:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: we.Message}
	case errors.As(err, &we):
		a.log.Warn("sampling failed", "code", we.Code, "error", we.Message)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "sampling failed: " + we.Message}
	default:
		a.log.Warn("sampling failed", "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "sampling failed"}
	}
	if ans.Action != wire.ActionAccept || ans.Sampling == nil {
		return nil, &jsonrpc.Error{Code: conn.RPCUserRejected, Message: "User rejected sampling request"}
	}
	res, err := mcpwire.SamplingResult(ans.Sampling)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("sampling answer: %v", err)}
	}
	return res, nil
}

// byModel answers a sampling request with the model, without a card.
func (a serverAsker) byModel(ctx context.Context, req *wire.SamplingRequest) (broker.Answer, error) {
	select {
	case a.modelSlots <- struct{}{}:
		defer func() { <-a.modelSlots }()
	default:
		return broker.Answer{}, wire.NewError(wire.CodeBadRequest,
			fmt.Sprintf("the model is already answering %d sampling requests; send this one when one of them is done", maxModelAnswers))
	}
	res, err := a.drafter.Draft(ctx, req)
	if err != nil {
		return broker.Answer{}, draftError(err)
	}
	res, err = broker.CheckSamplingResult(req, nil, res)
	if err != nil {
		var we *wire.Error
		errors.As(err, &we)
		return broker.Answer{}, wire.NewError(wire.CodeUpstream, "the model's answer does not fit the request: "+we.Message)
	}
	return broker.Answer{Action: wire.ActionAccept, Sampling: &res}, nil
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
