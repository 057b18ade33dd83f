package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// DraftTimeout bounds one draft.
const DraftTimeout = 2 * time.Minute

// Drafter writes answers to MCP sampling requests with one configured
// model and the operator's key; it satisfies relay/session's Drafter.
type Drafter struct {
	spec  Spec
	model llm.Model
}

// Drafter is the drafter of the model name, or of the first model that is
// not the demo when name is empty; nil when name is empty and there is no
// such model. The demo model drafts nothing.
func (r *Registry) Drafter(name string) (*Drafter, error) {
	if name == "" {
		for _, s := range r.specs {
			if s.Provider != Demo {
				return &Drafter{spec: s, model: r.models[s.Name]}, nil
			}
		}
		return nil, nil
	}
	s, ok := r.Spec(name)
	switch {
	case !ok:
		return nil, fmt.Errorf("the sampling model %q is not configured", name)
	case s.Provider == Demo:
		return nil, errors.New("the demo model is scripted: it cannot draft sampling answers")
	}
	return &Drafter{spec: s, model: r.models[name]}, nil
}

// Name names the model.
func (d *Drafter) Name() string { return d.spec.Name }

// Draft asks the model for the answer to req and returns its message:
// text and tool_use blocks. Its errors are [*wire.Error]s of code
// [wire.CodeUpstream], sanitized and without the key, or the context's
// error when ctx was cancelled.
func (d *Drafter) Draft(ctx context.Context, req *wire.SamplingRequest) (wire.SamplingResult, error) {
	ctx, cancel := context.WithTimeout(ctx, DraftTimeout)
	defer cancel()
	res, err := llm.Collect(d.model.Stream(ctx, toRequest(d.spec, req)))
	switch {
	case errors.Is(err, context.Canceled):
		return wire.SamplingResult{}, err
	case errors.Is(err, context.DeadlineExceeded):
		return wire.SamplingResult{}, wire.NewError(wire.CodeUpstream, fmt.Sprintf("the model did not answer within %s", DraftTimeout))
	case err != nil: // an *llm.Error: sanitized, without the key
		return wire.SamplingResult{}, wire.NewError(wire.CodeUpstream, err.Error())
	}
	out, err := fromResponse(d.spec.Model, res)
	if err != nil {
		return wire.SamplingResult{}, wire.NewError(wire.CodeUpstream, err.Error())
	}
	return out, nil
}
