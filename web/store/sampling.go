package store

import "github.com/switchboard-mcp/switchboard/shared/wire"

// AnswerSampling sends the reply a person wrote (or approved) to the
// sampling ask id. Nothing is sent while another op on the ask is on its
// way.
func (c *Client) AnswerSampling(id string, res *wire.SamplingResult) {
	c.askOp(id, string(wire.ActionAccept), "", true, wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: id, Action: wire.ActionAccept, Sampling: res})
}
