package llm

import (
	"context"
	"encoding/json"
	"iter"
)

// Role says who wrote a message.
type Role string

// The two roles of a conversation; the system prompt is [Request.System].
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// PartType says what a [Part] holds.
type PartType string

// The kinds of part.
const (
	PartText       PartType = "text"        // Text
	PartImage      PartType = "image"       // MIMEType and Data (user, tool result)
	PartAudio      PartType = "audio"       // MIMEType and Data (user; OpenAI-compatible only)
	PartReasoning  PartType = "reasoning"   // Text and Signature (assistant)
	PartToolCall   PartType = "tool_call"   // ToolCall (assistant)
	PartToolResult PartType = "tool_result" // ToolResult (user)
)

// Message is one turn of a conversation.
type Message struct {
	Role  Role
	Parts []Part
}

// Part is one piece of a message: the fields its Type names are set.
type Part struct {
	Type     PartType
	Text     string
	MIMEType string
	Data     []byte
	// Signature is the provider's seal of a reasoning part (Anthropic's
	// thinking signature); a reasoning part goes back to Anthropic only
	// with it, and never to an OpenAI-compatible endpoint.
	Signature  string
	ToolCall   *ToolCall
	ToolResult *ToolResult
}

// ToolCall is the model's call of a tool.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is a JSON object.
	Arguments json.RawMessage
}

// ToolResult answers the tool call CallID.
type ToolResult struct {
	CallID string
	// Parts are text and image parts.
	Parts   []Part
	IsError bool
}

// TextPart is a text part.
func TextPart(text string) Part { return Part{Type: PartText, Text: text} }

// ImagePart is an image of the given MIME type.
func ImagePart(mimeType string, data []byte) Part {
	return Part{Type: PartImage, MIMEType: mimeType, Data: data}
}

// AudioPart is a sound of the given MIME type (WAV or MP3).
func AudioPart(mimeType string, data []byte) Part {
	return Part{Type: PartAudio, MIMEType: mimeType, Data: data}
}

// ToolCallPart is an assistant's call of a tool.
func ToolCallPart(call ToolCall) Part { return Part{Type: PartToolCall, ToolCall: &call} }

// ToolResultPart is a user's answer to a tool call.
func ToolResultPart(result ToolResult) Part {
	return Part{Type: PartToolResult, ToolResult: &result}
}

// Tool is a tool offered to the model.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments; empty means any object.
	InputSchema json.RawMessage
}

// ToolMode says whether the model must call a tool.
type ToolMode string

// The tool modes; the zero mode leaves the choice to the provider's
// default, which is [ToolAuto].
const (
	ToolAuto     ToolMode = "auto"     // the model decides
	ToolNone     ToolMode = "none"     // the model calls no tool
	ToolRequired ToolMode = "required" // the model calls some tool ("any" for Anthropic)
	ToolNamed    ToolMode = "tool"     // the model calls the tool [ToolChoice.Name]
)

// ToolChoice says whether, and which, tool the model must call. It is sent
// only with tools.
type ToolChoice struct {
	Mode ToolMode
	Name string // with ToolNamed
}

// Request is one turn asked of the model.
type Request struct {
	System     string
	Messages   []Message
	Tools      []Tool
	ToolChoice ToolChoice
	// MaxTokens caps the answer; 0 leaves it to the endpoint
	// (OpenAI-compatible) or asks for DefaultMaxTokens (Anthropic, which
	// requires it).
	MaxTokens   int
	Temperature *float64
	Stop        []string
}

// StopReason says why the model stopped, in one set for both providers.
type StopReason string

// The stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"      // done (OpenAI "stop")
	StopToolUse   StopReason = "tool_use"      // waits for tool results (OpenAI "tool_calls")
	StopMaxTokens StopReason = "max_tokens"    // cut at MaxTokens or the context window (OpenAI "length")
	StopSequence  StopReason = "stop_sequence" // met a stop sequence (Anthropic only: OpenAI says "stop")
	StopRefusal   StopReason = "refusal"       // refused (Anthropic "refusal", OpenAI "content_filter")
)

// Usage counts tokens.
type Usage struct {
	// InputTokens counts the prompt, cached parts included.
	InputTokens  int
	OutputTokens int
}

// Response is the model's whole answer, as [Collect] assembles it.
type Response struct {
	// Message is the assistant's message: text, reasoning and tool calls
	// with complete arguments, in the order they came.
	Message    Message
	StopReason StopReason
	Usage      Usage
	// Model is the model that answered, as the endpoint names it.
	Model string
}

// Model streams a model's answers: a [*Client], or the relay's scripted
// demo model.
type Model interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}
