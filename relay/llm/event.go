package llm

// EventType says what an [Event] reports.
type EventType string

// The events of a stream.
const (
	EventText      EventType = "text"      // Text: the next piece of the answer's text
	EventReasoning EventType = "reasoning" // Text: the next piece of reasoning; or Signature, its seal
	EventToolCall  EventType = "tool_call" // Index, ID, Name: a tool call starts
	EventToolArgs  EventType = "tool_args" // Index, Text: the next piece of that call's JSON arguments
	EventUsage     EventType = "usage"     // Usage: the token counts so far
	EventEnd       EventType = "end"       // StopReason, Model: the answer is complete
)

// Event is one step of a streamed answer: the fields its Type names are set.
type Event struct {
	Type      EventType
	Text      string
	Signature string
	// Index tells a response's tool calls apart; the arguments of a call
	// arrive in pieces under the index of its EventToolCall.
	Index      int
	ID         string
	Name       string
	Usage      Usage
	StopReason StopReason
	Model      string
}
