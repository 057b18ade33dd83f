package conn

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sampling (see asker.go). With an [Asker] and [AskModes.Sampling], a
// connection advertises sampling with tools and hands a server's
// sampling/createMessage request (or a sampling input request of the
// 2026-07-28 protocol, which the go-sdk fulfils through the same handler)
// to [Asker.Sample]. Its answer is the server's, a result or a JSON-RPC
// error ([RPCUserRejected], [RPCRequestTimeout]); for an input request the
// go-sdk turns an error into the failure of the call that carried it. When
// the server cancels its request, or the session ends, the asker's context
// ends and the ask is withdrawn. A request raised during an operation is
// attributed to it as an elicitation is ([OperationOf]).

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
	ctx, stop := withScope(ctx, c.scope(req.Session))
	defer stop()
	ctx, done := c.onBehalf(ctx, methodSampling, req.Params)
	defer done()
	res, err := c.cfg.Asker.Sample(ctx, req.Params, originOf(ctx))
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err() // withdrawn: nobody waits for the answer
	}
	return res, err
}
