package store

import "github.com/switchboard-mcp/switchboard/shared/wire"

// AskForward is the [AskStatus.Sending] of a sampling ask being handed to
// the agent whose call raised it ([wire.OpForwardAsk]).
const AskForward = "forward"

// ForwardAsk hands the sampling ask id to the agent whose call raised it;
// the agent's reply answers it. A failure is the ask's [AskStatus.Err], and
// the ask stays.
func (c *Client) ForwardAsk(id string) {
	c.askOp(id, AskForward, "", true, wire.OpForwardAsk, wire.AskArgs{Ask: id})
}
