package wire

import (
	"encoding/json"
	"time"
)

// Calls are the tool calls, prompt gets and resource reads a person made,
// running or recently finished. They live in the user's state, so that a
// reload or a second tab shows them with their progress, their Cancel and
// their result; they change by [KindCall] deltas, one call at a time. The
// op that started a call still gets the result as its answer.

// Limits on calls in the state.
const (
	// MaxCallsPerServer is how many calls of one server the state keeps;
	// the oldest finished ones go first.
	MaxCallsPerServer = 20
	// MaxCallResultBytes caps a result kept in the state; a larger one is
	// left out (ResultOmitted), and only the op that made the call gets it.
	MaxCallResultBytes = 256 << 10
	// MaxCallID is the longest call id a dashboard may choose, in bytes.
	MaxCallID = 64
	// MaxCallArguments caps the arguments kept with a call in the state.
	MaxCallArguments = 64 << 10
)

// CallKind is what a call does.
type CallKind string

// Call kinds.
const (
	CallKindTool     CallKind = "tool"     // OpCallTool; Name is the tool
	CallKindPrompt   CallKind = "prompt"   // OpGetPrompt; Name is the prompt
	CallKindResource CallKind = "resource" // OpReadResource; Name is the URI
)

// CallState is where a call is in its life.
type CallState string

// Call states.
const (
	CallRunning CallState = "running"
	CallDone    CallState = "done"   // Result holds the answer (a tool result may still be an error)
	CallFailed  CallState = "failed" // Error says why; CodeCancelled when cancelled
)

// Call is one call in the state.
type Call struct {
	ID       string    `json:"id"`
	Server   string    `json:"server"`
	Kind     CallKind  `json:"kind"`
	Name     string    `json:"name"`
	State    CallState `json:"state"`
	Progress *Progress `json:"progress,omitempty"` // the last progress report while running
	Task     *CallTask `json:"task,omitempty"`     // set when the call runs as an MCP task
	// Cancelling is set once a cancel was asked for; the call still runs
	// until the server gives up.
	Cancelling bool `json:"cancelling,omitempty"`
	// Arguments are a tool call's arguments (omitted over
	// MaxCallArguments bytes), so that its view can be shown again.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// App is the ui:// URI of the view that made the call, if one did.
	App string `json:"app,omitempty"`

	Result        json.RawMessage `json:"result,omitempty"` // the op's result, when done
	ResultOmitted bool            `json:"resultOmitted,omitempty"`
	Error         *Error          `json:"error,omitempty"`

	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
}

// CallTask is the MCP task a call runs as.
type CallTask struct {
	ID            string     `json:"id"`
	Status        TaskStatus `json:"status"` // the server's word, sanitized: one of the Task* statuses, or another
	StatusMessage string     `json:"statusMessage,omitempty"`
}

// CallArgs name one call.
type CallArgs struct {
	Call string `json:"call"`
}

// PingResult is the result of [OpPing].
type PingResult struct {
	RoundTripMillis float64 `json:"roundTripMillis"`
}
