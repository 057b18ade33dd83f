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

// Ask kinds.
const (
	AskForm = "form" // fill a form described by Schema
	AskURL  = "url"  // consent to open URL
)

// Ask origins: why the server is asking.
const (
	AskFromElicitation = "elicitation"   // an elicitation/create request
	AskFromURLRequired = "url_required"  // a -32042 error listing URL elicitations to complete before a retry
	AskFromInput       = "input_request" // a 2026-07-28 multi-round-trip input request
)

// Ask states.
const (
	AskPending = "pending" // waiting for a person's answer
	AskWaiting = "waiting" // URL accepted: waiting for the server's completion notification
	// AskRefused: the relay declined it for the person (a URL that may not be
	// opened); shown with Refusal until dismissed or for a short while.
	AskRefused = "refused"
)

// Answer actions.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// KindAsk is the change kind of asks: Server is the asking server's id, Key
// the ask id, Value an [Ask].
const KindAsk = "ask"

// Ask is one pending request for a person.
type Ask struct {
	ID         string `json:"id"`
	Server     string `json:"server"`     // id of the asking server
	ServerName string `json:"serverName"` // its registered name
	Kind       string `json:"kind"`       // AskForm or AskURL
	From       string `json:"from"`       // AskFromElicitation, AskFromURLRequired or AskFromInput
	State      string `json:"state"`      // AskPending, AskWaiting or AskRefused
	Message    string `json:"message"`    // the server's message: untrusted text, capped

	Schema json.RawMessage `json:"schema,omitempty"` // AskForm: the requested schema (shared/schema parses it)

	URL           string `json:"url,omitempty"`           // AskURL: the URL to open
	ElicitationID string `json:"elicitationId,omitempty"` // AskURL: the server's elicitation id

	// Refusal says why the relay refused an AskRefused ask, sanitized. The
	// refused URL itself is never sent: URL is empty.
	Refusal string `json:"refusal,omitempty"`

	// Agent, Tool and Call say on whose behalf the server asks, when the
	// relay could tell (see relay/conn caller.go): the agent's name ("" for
	// the person's own call), the tool (prompt, resource) it called, and
	// the call's id. Untrusted text, capped.
	Agent string `json:"agent,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Call  string `json:"call,omitempty"`

	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"` // the relay answers cancel at this time
}

// Ops on asks.
const (
	// OpAnswerAsk answers an ask: [AnswerAskArgs] → {}. The first answer
	// wins; an answer to an unknown or settled ask is a [CodeNotFound] error,
	// one to a refused ask a [CodeBadRequest] error.
	// An accepted form must validate against its schema ([CodeBadRequest]
	// with the field errors otherwise); URL answers carry no content.
	OpAnswerAsk = "ask.answer"
	// OpDismissAsk stops waiting for a URL ask's completion, or takes a
	// refused ask off the dashboards: [AskArgs] → {}.
	OpDismissAsk = "ask.dismiss"
	// OpCompleteAsk marks a waiting URL ask as done by the person (when the
	// server sends no completion notification): [AskArgs] → {}.
	OpCompleteAsk = "ask.complete"
)

// Elicitation modes a server may be offered.
const (
	ModeForm = "form"
	ModeURL  = "url"
)

// OpSetElicitation narrows or widens the elicitation modes advertised to a
// server: [SetElicitationArgs] → {}. The server reconnects, since modes are
// advertised when a session starts.
const OpSetElicitation = "server.set_elicitation"

// SetElicitationArgs are the arguments of [OpSetElicitation].
type SetElicitationArgs struct {
	Server string `json:"server"`
	Form   bool   `json:"form"`
	URL    bool   `json:"url"`
}

// AnswerAskArgs are the arguments of [OpAnswerAsk].
type AnswerAskArgs struct {
	Ask     string         `json:"ask"`
	Action  string         `json:"action"`            // ActionAccept, ActionDecline or ActionCancel
	Content map[string]any `json:"content,omitempty"` // accepted form values
}

// AskArgs name one ask.
type AskArgs struct {
	Ask string `json:"ask"`
}
