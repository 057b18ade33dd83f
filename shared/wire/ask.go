package wire

import (
	"encoding/json"
	"time"
)

// Asks are a server's requests for a person: an elicitation form, consent to
// open a URL. They are the "prompt" frames of the design, named asks here so
// that they are not confused with MCP prompts. Pending asks are part of the
// snapshot, so a reloaded or reconnected dashboard gets them again, and they
// change by [KindAsk] deltas; removing one means it was settled (answered here
// or in another tab, timed out, or withdrawn by the server).

// AskKind is what a person is asked to do.
type AskKind string

// Ask kinds.
const (
	AskForm     AskKind = "form"     // fill a form described by Schema
	AskURL      AskKind = "url"      // consent to open URL
	AskSampling AskKind = "sampling" // write the message described by Sampling (sampling.go)
)

// AskFrom is why a server is asking.
type AskFrom string

// Ask origins.
const (
	AskFromElicitation AskFrom = "elicitation"   // an elicitation/create request
	AskFromURLRequired AskFrom = "url_required"  // a -32042 error listing URL elicitations to complete before a retry
	AskFromInput       AskFrom = "input_request" // a 2026-07-28 multi-round-trip input request
	AskFromSampling    AskFrom = "sampling"      // a sampling/createMessage request
)

// AskState is where an ask is in its life.
type AskState string

// Ask states.
const (
	AskPending AskState = "pending" // waiting for a person's answer
	AskWaiting AskState = "waiting" // URL accepted: waiting for the server's completion notification
	// AskRefused: the relay declined it for the person (a URL that may not be
	// opened); shown with Refusal until dismissed or for a short while.
	AskRefused AskState = "refused"
)

// Action is how a person answered an ask.
type Action string

// Answer actions.
const (
	ActionAccept  Action = "accept"
	ActionDecline Action = "decline"
	ActionCancel  Action = "cancel"
)

// Ask is one pending request for a person.
type Ask struct {
	ID         string   `json:"id"`
	Server     string   `json:"server"`     // id of the asking server
	ServerName string   `json:"serverName"` // its registered name
	Kind       AskKind  `json:"kind"`       // AskForm, AskURL or AskSampling
	From       AskFrom  `json:"from"`       // AskFromElicitation, AskFromURLRequired, AskFromInput or AskFromSampling
	State      AskState `json:"state"`      // AskPending, AskWaiting or AskRefused
	Message    string   `json:"message"`    // the server's message: untrusted text, capped

	Schema json.RawMessage `json:"schema,omitempty"` // AskForm: the requested schema (shared/schema parses it)

	URL           string `json:"url,omitempty"`           // AskURL: the URL to open
	ElicitationID string `json:"elicitationId,omitempty"` // AskURL: the server's elicitation id

	// Refusal says why the relay refused an AskRefused ask, sanitized. The
	// refused URL itself is never sent: URL is empty.
	Refusal string `json:"refusal,omitempty"`

	// Sampling is the request of an AskSampling ask.
	Sampling *SamplingRequest `json:"sampling,omitempty"`
	// Agent, Tool and Call say on whose behalf the server asks, when the
	// relay could tell (see relay/conn caller.go): the agent's name ("" for
	// the person's own call), the tool (prompt, resource) it called, and
	// the call's id. Untrusted text, capped.
	Agent string `json:"agent,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Call  string `json:"call,omitempty"`
	// Chat, for a question raised during a tool call of the person's chat,
	// is the conversation's id; Call is then the [ChatToolCall]'s id.
	Chat string `json:"chat,omitempty"`
	// Forward: the person may hand this sampling ask to the client of Agent
	// ([OpForwardAsk]); see forward.go.
	Forward bool `json:"forward,omitempty"`

	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"` // the relay answers cancel at this time
}

// AnswerAskArgs are the arguments of [OpAnswerAsk].
type AnswerAskArgs struct {
	Ask     string         `json:"ask"`
	Action  Action         `json:"action"`            // ActionAccept, ActionDecline or ActionCancel
	Content map[string]any `json:"content,omitempty"` // accepted form values
	// Sampling is the message written for an accepted AskSampling ask.
	Sampling *SamplingResult `json:"sampling,omitempty"`
}

// AskArgs name one ask.
type AskArgs struct {
	Ask string `json:"ask"`
}
