package store

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Calls live in the relay's state too (wire.Call), so that a reload or
// another tab shows them. A call made here has the id tab + "." + op id
// there; the view lists this tab's calls under their op id, with what the
// op's answer said once it came (the whole result, even one too large for
// the state), and the others from the state alone.

// newTabID is a random name for this client's calls in the state.
func newTabID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// stateCallID is the id in the state of the call made by op id.
func (c *Client) stateCallID(opID string) string { return c.tab + "." + opID }

// viewCallsLocked merges this tab's calls with the other tabs' from the
// state, newest first. This tab's calls keep their order, whether the state
// lists them or not (it keeps only the last few of a server); another tab's
// go where they started.
func (c *Client) viewCallsLocked() []Call {
	if len(c.snap.Calls) == 0 {
		return c.calls
	}
	prefix := c.tab + "."
	mine := make(map[string]wire.Call) // this tab's calls in the state, by op id
	var others []wire.Call             // newest first, as the state lists calls as they start
	for i := len(c.snap.Calls) - 1; i >= 0; i-- {
		sc := c.snap.Calls[i]
		if opID, ok := strings.CutPrefix(sc.ID, prefix); ok {
			mine[opID] = sc // one this tab let go (a read made again replaces it) shows nowhere
		} else {
			others = append(others, sc)
		}
	}
	out := make([]Call, 0, len(c.calls)+len(others))
	for _, call := range c.calls {
		for len(others) > 0 && others[0].Started.After(call.Started) {
			out = append(out, c.fromStateLocked(others[0]))
			others = others[1:]
		}
		if sc, ok := mine[call.ID]; ok {
			call = c.mergeLocalLocked(call, sc)
		}
		out = append(out, call) // or just sent, or refused before the relay listed it, or no longer in the state
	}
	for _, sc := range others {
		out = append(out, c.fromStateLocked(sc))
	}
	if len(c.stateDone) > 2*len(c.snap.Calls) {
		c.stateDone = nil // forget the calls the state dropped; the kept ones convert again
	}
	return out
}

// mergeLocalLocked is this tab's call, with what only the state knows. A
// call whose answer this tab lost (the socket dropped) is as the state has it.
func (c *Client) mergeLocalLocked(local Call, sc wire.Call) Call {
	if local.Status != CallPending && local.Code != CodeConnectionLost {
		local.Task = sc.Task
		return local
	}
	if local.Status == CallPending {
		local.Task = sc.Task
		if sc.Progress != nil {
			local.Progress = sc.Progress
		}
		local.Cancel = local.Cancel || sc.Cancelling
		return local
	}
	call := c.fromStateLocked(sc)
	call.ID, call.Elsewhere = local.ID, false
	return call
}

// fromStateLocked converts a call known from the state only. Finished ones
// are converted once.
func (c *Client) fromStateLocked(sc wire.Call) Call {
	if sc.State != wire.CallRunning {
		if done, ok := c.stateDone[sc.ID]; ok {
			return done
		}
	}
	call := Call{ID: sc.ID, Kind: sc.Kind, Server: sc.Server, Name: sc.Name, Progress: sc.Progress,
		Task: sc.Task, Cancel: sc.Cancelling, Elsewhere: true, Status: CallPending, Arguments: sc.Arguments, App: sc.App}
	switch sc.State {
	case wire.CallRunning:
		return call
	case wire.CallFailed:
		e := sc.Error
		if e == nil {
			e = &wire.Error{Code: wire.CodeInternal, Message: "the call failed"}
		}
		call.Status, call.Code, call.Error = CallError, e.Code, describeError(e)
	default:
		call.Status = CallOK
		if sc.ResultOmitted {
			call.Text = "The result is too large to keep for other tabs; it was shown where the call was made."
			break
		}
		text, isError := outcomeOf(call.Kind)(sc.Result)
		call.Text, call.JSON = clip(text), clip(IndentJSON(sc.Result))
		call.Size = len(sc.Result)
		if call.Kind == wire.CallKindTool {
			call.Tool = toolResult(sc.Result)
		}
		if isError {
			call.Status, call.Code, call.Error = CallError, wire.CodeToolError, toolErrorText(text)
		}
	}
	if c.stateDone == nil {
		c.stateDone = map[string]Call{}
	}
	c.stateDone[sc.ID] = call
	return call
}

// outcomeOf is the outcome of a kind of call.
func outcomeOf(kind wire.CallKind) outcome {
	switch kind {
	case wire.CallKindPrompt:
		return promptOutcome
	case wire.CallKindResource:
		return resourceOutcome
	}
	return toolOutcome
}

// cancelElsewhere cancels, with call.cancel, a running call this tab did
// not make or whose op's answer it lost; it reports false when id is a call
// of this tab still waiting for its op's answer (op.cancel cancels it).
func (c *Client) cancelElsewhere(id string) bool {
	c.mu.Lock()
	li := slices.IndexFunc(c.calls, func(call Call) bool { return call.ID == id })
	if li >= 0 && c.calls[li].Status == CallPending {
		c.mu.Unlock()
		return false
	}
	stateID := id
	if li >= 0 {
		stateID = c.stateCallID(id)
	}
	i := slices.IndexFunc(c.snap.Calls, func(sc wire.Call) bool { return sc.ID == stateID })
	running := i >= 0 && c.snap.Calls[i].State == wire.CallRunning && !c.snap.Calls[i].Cancelling
	c.mu.Unlock()
	if running {
		c.Do(wire.OpCancelCall, wire.CallArgs{Call: stateID}, func(Reply) {})
	}
	return true
}
