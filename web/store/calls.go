package store

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// CallStatus is the state of a [Call].
type CallStatus string

// Call states.
const (
	CallPending CallStatus = "pending"
	CallOK      CallStatus = "ok"
	CallError   CallStatus = "error"
)

// maxCalls is how many calls the client remembers; the oldest finished ones go first.
const maxCalls = 100

// Call is one tool call, resource read or prompt get and what came back.
type Call struct {
	ID        string // the op id
	Kind      wire.CallKind
	Server    string
	Name      string
	Status    CallStatus
	Progress  *wire.Progress // the last progress report, if any
	Cancel    bool           // a cancel was sent and not refused
	CancelErr *wire.Error    // why the relay refused the last cancel; the call runs on
	Task      *wire.CallTask // the MCP task the call runs as, if any
	// Elsewhere is set for a call made in another tab (or before a reload):
	// it is known from the relay's state only.
	Elsewhere bool

	Text string // the readable part of the result
	// Contents are the resource contents of the result (a read's, or those
	// embedded in a prompt's messages or a tool's result), to render by type.
	Contents []wire.ResourceContents
	JSON     string    // the whole result, indented
	Error    string    // why the call failed, in words
	Code     wire.Code // the error's wire code

	Started, Ended time.Time // when this tab sent the call and got its answer (zero for calls from the state)
	// Tool is the tool result, for a tool call this tab made that succeeded
	// (even with isError): the dashboard renders its content by type.
	Tool *wire.CallToolResult
	Size int // the bytes of the whole result

	// Arguments are a tool call's arguments, when known; App is the ui://
	// URI of the view that made the call, if one did.
	Arguments json.RawMessage
	App       string
	// Streaming is set for a chat's call whose arguments the model is
	// still writing: PartialArguments holds what it wrote so far.
	Streaming        bool
	PartialArguments string
}

// CallsTo returns the calls of kind made to server, newest first.
func (v View) CallsTo(server string, kind wire.CallKind) []Call {
	var out []Call
	for _, c := range v.Calls {
		if c.Server == server && c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// wire.CallKindTool calls a tool with arguments (a JSON object) and returns the call's id.
func (c *Client) CallTool(server, tool string, args json.RawMessage) string {
	return c.CallToolFrom("", server, tool, args, nil)
}

// CallToolFrom calls a tool for the App view at URI app ("" for the
// person's own call) and returns the call's id; done, when not nil, gets
// the relay's answer too.
func (c *Client) CallToolFrom(app, server, tool string, args json.RawMessage, done func(Reply)) string {
	return c.startCall(Call{Kind: wire.CallKindTool, Server: server, Name: tool, Arguments: args, App: app}, wire.OpCallTool, func(call string) any {
		return wire.CallToolArgs{Server: server, Name: tool, Arguments: args, Call: call, App: app}
	}, toolOutcome, done)
}

// ReadResource reads a resource and returns the call's id.
func (c *Client) ReadResource(server, uri string) string {
	return c.startCall(Call{Kind: wire.CallKindResource, Server: server, Name: uri}, wire.OpReadResource, func(call string) any {
		return wire.ReadResourceArgs{Server: server, URI: uri, Call: call}
	}, resourceOutcome, nil)
}

// GetPrompt gets a prompt with its arguments and returns the call's id.
func (c *Client) GetPrompt(server, name string, args map[string]string) string {
	return c.startCall(Call{Kind: wire.CallKindPrompt, Server: server, Name: name}, wire.OpGetPrompt, func(call string) any {
		return wire.GetPromptArgs{Server: server, Name: name, Arguments: args, Call: call}
	}, promptOutcome, nil)
}

// Cancel asks the relay to cancel a pending call. The call ends when the
// relay answers it (with a cancelled error, or its result if it won the
// race). A refused cancel leaves the call running, with the refusal as its
// CancelErr, and it may be cancelled again.
func (c *Client) Cancel(callID string) {
	if c.cancelElsewhere(callID) {
		return
	}
	if !c.updateCall(callID, func(call *Call) bool {
		if call.Status != CallPending || call.Cancel {
			return false
		}
		call.Cancel, call.CancelErr = true, nil
		return true
	}) {
		return
	}
	c.cfg.OnChange()
	c.Do(wire.OpCancel, wire.CancelArgs{ID: callID}, func(r Reply) {
		if r.Err == nil {
			return
		}
		if c.updateCall(callID, func(call *Call) bool {
			if call.Status != CallPending {
				return false // the call ended meanwhile: its outcome says it all
			}
			call.Cancel, call.CancelErr = false, r.Err
			return true
		}) {
			c.cfg.OnChange()
		}
	})
}

// outcome turns a successful answer into what a call shows.
type outcome func(data json.RawMessage) (text string, isError bool)

// startCall lists call (its kind, server, name and what it was called
// with) as pending and sends op; done, when not nil, gets the answer after
// the call records it.
func (c *Client) startCall(call Call, op wire.OpName, args func(call string) any, out outcome, done func(Reply)) string {
	// The call is listed before the op is sent, so an answer that comes at
	// once (an offline error) finds it.
	id := c.newID()
	call.ID, call.Status, call.Started = id, CallPending, c.cfg.Now()
	c.mu.Lock()
	c.calls = pushCall(c.calls, call)
	c.mu.Unlock()

	c.send(id, op, args(c.stateCallID(id)), func(r Reply) {
		ended := c.cfg.Now()
		c.updateCall(id, func(call *Call) bool { finishCall(call, r, out); call.Ended = ended; return true })
		c.dropOldBlobs()
		c.cfg.OnChange()
		if done != nil {
			done(r)
		}
	}, func(p wire.Progress) {
		c.updateCall(id, func(call *Call) bool { call.Progress = &p; return true })
		c.cfg.OnChange()
	})
	c.cfg.OnChange()
	return id
}

// updateCall edits the call with id in a fresh copy of the list, if edit says it changed.
func (c *Client) updateCall(id string, edit func(*Call) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.calls, func(call Call) bool { return call.ID == id })
	if i < 0 {
		return false
	}
	call := c.calls[i]
	if !edit(&call) {
		return false
	}
	c.calls = slices.Clone(c.calls)
	c.calls[i] = call
	return true
}

// pushCall returns a new list with call first, dropping the oldest finished
// calls beyond maxCalls.
func pushCall(calls []Call, call Call) []Call {
	out := make([]Call, 0, len(calls)+1)
	out = append(out, call)
	out = append(out, calls...)
	for i := len(out) - 1; len(out) > maxCalls && i > 0; i-- {
		if out[i].Status != CallPending {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// finishCall records an answer in call.
func finishCall(call *Call, r Reply, out outcome) {
	call.Progress = nil
	if r.Err != nil {
		call.Status, call.Code, call.Error = CallError, r.Err.Code, describeError(r.Err)
		return
	}
	text, isError := out(r.Data)
	call.Text, call.JSON = clip(text), clip(IndentJSON(r.Data))
	call.Contents = contentsOf(call.Kind, r.Data)
	call.Size = len(r.Data)
	if call.Kind == wire.CallKindTool {
		call.Tool = toolResult(r.Data)
	}
	call.Status = CallOK
	if isError {
		call.Status, call.Code, call.Error = CallError, wire.CodeToolError, toolErrorText(text)
	}
}
