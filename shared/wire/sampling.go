package wire

import "encoding/json"

// Sampling: a server asks the relay's person (or, when the person allowed
// it, the relay's configured model) to write the next message of a
// conversation (MCP sampling/createMessage, or a sampling input request of
// the 2026-07-28 protocol). It is an [Ask] of kind [AskSampling] whose
// Sampling holds the request; the person answers it with [AnswerAskArgs]
// carrying a [SamplingResult], declines it (the server gets the spec's
// "user rejected" error), or first asks the relay for a draft with
// [OpDraftAsk].

// SamplingMode is how the relay answers a server's sampling requests.
type SamplingMode string

// Sampling modes of a server.
const (
	SamplingOff   SamplingMode = "off"   // not advertised: the server cannot ask
	SamplingAsk   SamplingMode = "ask"   // a card for the person (the default)
	SamplingModel SamplingMode = "model" // the configured model answers, without a card
)

// ToolChoice is how a sampling request lets the writer use the tools it
// offers (its toolChoice's mode). A server may send another word: it is
// kept, sanitized.
type ToolChoice string

// Tool choices.
const (
	ToolChoiceAuto     ToolChoice = "auto"     // the writer may call tools
	ToolChoiceRequired ToolChoice = "required" // the writer must call at least one
	ToolChoiceNone     ToolChoice = "none"     // the writer must not call any
)

// StopReason says why a [SamplingResult]'s writer stopped. An agent's client
// may give another word: it is kept, sanitized.
type StopReason string

// Stop reasons.
const (
	StopEndTurn   StopReason = "endTurn"   // the message is complete
	StopToolUse   StopReason = "toolUse"   // the message calls tools
	StopMaxTokens StopReason = "maxTokens" // the message hit the token limit
)

// Limits of sampling requests and answers.
const (
	// MaxSamplingBytes caps the JSON of one sampling request the relay
	// shows, and of one answer.
	MaxSamplingBytes = 512 << 10
	// MaxSamplingMessages caps the messages of one request.
	MaxSamplingMessages = 200
	// MaxSamplingTools caps the tools offered in one request.
	MaxSamplingTools = 64
)

// SamplingRequest is what a server asks to be written.
type SamplingRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"` // none, thisServer, allServers
	MaxTokens        int64             `json:"maxTokens"`
	Temperature      float64           `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// Tools are the tools the server offers the writer; ToolChoice is
	// ToolChoiceAuto, ToolChoiceRequired or ToolChoiceNone ("" when unset).
	Tools      []Tool     `json:"tools,omitempty"`
	ToolChoice ToolChoice `json:"toolChoice,omitempty"`
	// Drafter names the model the relay drafts with ([OpDraftAsk]); empty
	// when no model is configured.
	Drafter string `json:"drafter,omitempty"`
}

// SamplingMessage is one message of a conversation.
type SamplingMessage struct {
	Role    Role              `json:"role"` // RoleUser or RoleAssistant, or the server's own word
	Content []SamplingContent `json:"content"`
}

// SamplingContent is one block of a sampling message. Only the fields of
// its type are set.
type SamplingContent struct {
	Type     ContentType `json:"type"` // ContentText, ContentImage, ContentAudio, ContentToolUse, ContentToolResult
	Text     string      `json:"text,omitempty"`
	MIMEType string      `json:"mimeType,omitempty"` // image and audio
	Data     string      `json:"data,omitempty"`     // image and audio, base64

	ID    string          `json:"id,omitempty"`    // tool_use: its id
	Name  string          `json:"name,omitempty"`  // tool_use: the tool
	Input json.RawMessage `json:"input,omitempty"` // tool_use: the arguments, a JSON object

	ToolUseID         string            `json:"toolUseId,omitempty"`         // tool_result: the tool_use it answers
	Content           []SamplingContent `json:"content,omitempty"`           // tool_result: its content
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"` // tool_result
	IsError           bool              `json:"isError,omitempty"`           // tool_result
}

// ModelPreferences are a server's advisory preferences for the model.
type ModelPreferences struct {
	Hints                []string `json:"hints,omitempty"` // model name hints, in order
	CostPriority         float64  `json:"costPriority,omitempty"`
	SpeedPriority        float64  `json:"speedPriority,omitempty"`
	IntelligencePriority float64  `json:"intelligencePriority,omitempty"`
}

// SamplingResult is the message written for a sampling ask: the answer the
// server gets, or a draft of it.
type SamplingResult struct {
	Model      string            `json:"model"`      // the model (or person) that wrote it
	StopReason StopReason        `json:"stopReason"` // StopEndTurn, StopToolUse, StopMaxTokens
	Content    []SamplingContent `json:"content"`    // text, image, audio or tool_use blocks
}
