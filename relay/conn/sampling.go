package conn

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Sampling. With an [Asker] and [AskModes.Sampling], a connection
// advertises sampling with tools and turns a server's
// sampling/createMessage request (or a sampling input request of the
// 2026-07-28 protocol, which the go-sdk fulfils through the same handler)
// into a [wire.AskSampling] ask whose Sampling is the request, sanitized
// and capped (see sampleconvert.go). The asker's answer becomes the
// result; anything else is a JSON-RPC error, never a made-up message:
//   - declined or cancelled: the spec's "user rejected" error (-1);
//   - not answered in time (a [wire.CodeCancelled] error from the asker):
//     a request timeout (-32001);
//   - a request the relay cannot show (too large, malformed): invalid
//     params (-32602);
//   - any other failure of the asker (the model failed): internal error.
//
// For an input request the go-sdk turns the error into the failure of the
// call that carried it: the server never sees it, the caller does.
// When the server cancels its request, or the session ends, the asker's
// context ends and the ask is withdrawn. A request raised during a call is
// attributed to it as an elicitation is (caller.go), and may be offered for
// forwarding to the calling agent's client (forward.go).

// JSON-RPC error codes of sampling.
const (
	codeUserRejected   = -1     // the spec's "user rejected sampling request"
	codeRequestTimeout = -32001 // nobody answered in time
)

// samples reports whether c advertises sampling.
func (c *Conn) samples() bool { return c.cfg.Asker != nil && c.cfg.Modes.Sampling }

// samplingHandler is the go-sdk's CreateMessageWithToolsHandler of c: nil
// when c does not sample, so that the go-sdk refuses sampling requests.
func (c *Conn) samplingHandler() func(context.Context, *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	if !c.samples() {
		return nil
	}
	return c.sample
}

// sample answers a sampling request by asking the asker.
func (c *Conn) sample(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	sr, err := mcpwire.SamplingRequest(req.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	from := wire.AskFromSampling
	if askOrigin(ctx) == wire.AskFromInput {
		from = wire.AskFromInput
	}
	a := wire.Ask{Server: c.cfg.ID, ServerName: c.cfg.Name, Kind: wire.AskSampling, From: from, Sampling: sr}
	ctx, stop := withScope(ctx, c.scope(req.Session))
	defer stop()
	ctx, caller, done := c.onBehalf(ctx, methodSampling, req.Params)
	if caller != nil {
		caller.label(&a)
		ctx = offerForward(ctx, &a, caller.Sampler, req.Params)
	}
	ans, err := c.cfg.Asker.Ask(ctx, a)
	withdrawn := ctx.Err()
	var we *wire.Error
	done(errors.As(err, &we) && we.Code == wire.CodeCancelled)
	switch {
	case err == nil:
	case withdrawn != nil:
		return nil, withdrawn // nobody waits for the answer
	case errors.As(err, &we) && we.Code == wire.CodeCancelled:
		return nil, &jsonrpc.Error{Code: codeRequestTimeout, Message: "the sampling request timed out: " + we.Message}
	case errors.As(err, &we) && we.Code == wire.CodeBadRequest:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: we.Message}
	case errors.As(err, &we):
		c.log.Warn("sampling failed", "code", we.Code, "error", we.Message)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "sampling failed: " + we.Message}
	default:
		c.log.Warn("sampling failed", "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "sampling failed"}
	}
	if ans.Action != wire.ActionAccept || ans.Sampling == nil {
		return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "User rejected sampling request"}
	}
	res, err := mcpwire.SamplingResult(ans.Sampling)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("sampling answer: %v", err)}
	}
	return res, nil
}
