package modelfixture

import (
	"time"
)

// Stop is why a reply ends, said the provider's way on the wire: StopEnd
// is OpenAI's "stop" and Anthropic's "end_turn", StopToolUse "tool_calls"
// and "tool_use", StopMaxTokens "length" and "max_tokens". Any other value
// is sent as it is, for reasons such as "content_filter".
type Stop string

// The provider-neutral stop reasons.
const (
	StopEnd       Stop = "end"
	StopToolUse   Stop = "tool_use"
	StopMaxTokens Stop = "max_tokens"
)

// DefaultChunk is how many runes a delta carries when a Reply says none.
const DefaultChunk = 4

// EndlessToken is the text an endless stream sends on each tick.
const EndlessToken = "more "

// Reply is what the fixture answers one request with, whichever provider
// asked. Its content streams in this order: reasoning, text, tool calls.
type Reply struct {
	Reasoning string     // OpenAI reasoning_content, Anthropic thinking
	Text      string     // the answer's text
	ToolCalls []ToolCall // several are parallel calls
	Stop      Stop       // default StopToolUse with tool calls, else StopEnd
	Usage     Usage
	Chunk     int // runes per delta of text, reasoning and arguments; default DefaultChunk

	// Latency holds the answer's first byte back this long (time to
	// first token), or until the client goes away.
	Latency time.Duration

	// Status, when not zero, answers an HTTP error instead: Body (default
	// the provider's error JSON for Status) with Retry-After: RetryAfter
	// when set.
	Status     int
	Body       string
	RetryAfter string

	// Fail ends a stream early; see Fail. A non-streaming request gets
	// its connection aborted for a cut, else a 500 with the error.
	Fail *Fail

	// Hold, when set, pauses a stream before its delta After (counted as
	// Fail counts them) until Until is closed or the client goes away.
	Hold *Hold

	// Endless, when not zero, makes a stream send its reasoning and text,
	// then EndlessToken as a text delta every Endless, never ending until
	// the client goes away. A non-streaming request gets no answer until
	// then. It overrides Fail.
	Endless time.Duration
}

// Fail ends a stream after After deltas (text, reasoning or argument
// fragments; After past the last delta fails before the stream's end):
// with the provider's error event (OpenAI: a data chunk {"error":{...}};
// Anthropic: event error), or, when Cut, without error nor end marker.
type Fail struct {
	After int
	Cut   bool // end the body cleanly but without the stream's end marker
	Abort bool // with Cut: break the connection instead of ending the body
	// Type and Message are the error's; Type defaults to "server_error"
	// (OpenAI) or "overloaded_error" (Anthropic).
	Type, Message string
}

// Hold pauses a stream; see Reply.Hold.
type Hold struct {
	After int
	Until <-chan struct{}
}

// ToolCall is a call the model makes, or one a request's history holds.
type ToolCall struct {
	ID        string // default call_N_I (OpenAI) or toolu_N_I (Anthropic)
	Name      string
	Arguments string // JSON; default {}
}

// Usage counts tokens.
type Usage struct {
	Input, Output int
}

// Text is a reply of text alone.
func Text(s string) Reply { return Reply{Text: s} }

// Calls is a reply calling tools.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Status is an HTTP error reply; body "" is the provider's error JSON.
func Status(code int, body, retryAfter string) Reply {
	return Reply{Status: code, Body: body, RetryAfter: retryAfter}
}

// stop is the reply's stop reason, defaulted.
func (r Reply) stop() Stop {
	switch {
	case r.Stop != "":
		return r.Stop
	case len(r.ToolCalls) > 0:
		return StopToolUse
	default:
		return StopEnd
	}
}

// chunks splits s into pieces of the reply's chunk size in runes.
func (r Reply) chunks(s string) []string {
	n := r.Chunk
	if n <= 0 {
		n = DefaultChunk
	}
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

// arguments is a call's arguments, defaulted.
func (c ToolCall) arguments() string {
	if c.Arguments == "" {
		return "{}"
	}
	return c.Arguments
}
