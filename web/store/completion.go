package store

import (
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Complete asks the server for values of a prompt argument or template
// variable and returns the op's id, which [Client.CancelOp] takes when the
// answer is no longer wanted. done is called exactly once, with the result
// or the error, outside the client's lock.
func (c *Client) Complete(args wire.CompleteArgs, done func(*wire.CompleteResult, *wire.Error)) string {
	return c.Do(wire.OpComplete, args, func(r Reply) {
		if r.Err != nil {
			done(nil, r.Err)
			return
		}
		var res wire.CompleteResult
		if err := json.Unmarshal(r.Data, &res); err != nil {
			done(nil, &wire.Error{Code: wire.CodeInternal, Message: "the relay sent a malformed completion"})
			return
		}
		if len(res.Values) > wire.MaxCompletionValues {
			res.Values, res.HasMore = res.Values[:wire.MaxCompletionValues], true
		}
		done(&res, nil)
	})
}

// CancelOp asks the relay to cancel the running op id, whose answer is no
// longer wanted; the op still gets its one answer (a cancelled error, or its
// result if it won the race).
func (c *Client) CancelOp(id string) {
	c.Do(wire.OpCancel, wire.CancelArgs{ID: id}, func(Reply) {})
}
