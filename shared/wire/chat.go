package wire

import (
	"encoding/json"
	"time"
)

// The chat: a person's own conversations with a model that uses their
// servers' tools. The relay runs each conversation's turns; the user's
// state carries the summary of every conversation ([Chat], [KindChat]) and
// the latest turn of the conversations that ran since the relay's session
// started ([ChatTurn], [KindChatTurn]), which a streaming answer grows by
// small changes ([KindChatText], [KindChatPart], [KindChatEnd]). A
// conversation's earlier turns are read with [OpGetChat]; a turn of the
// state supersedes the stored turn of the same id.

// Limits of the chat.
const (
	MaxChats         = 500     // conversations of one user
	MaxChatTitle     = 200     // runes of a title
	MaxChatMessage   = 100_000 // bytes of a person's message
	MaxChatAttach    = 10      // attachments of one message
	MaxCompare       = 3       // conversations of a compare group
	MaxLiveChatTurns = 20      // finished turns kept in the state (running ones are always kept)
	DefaultChatSteps = 20      // model requests of one turn, by default
	// MaxChatToolResult caps the bytes of a tool result given to the model;
	// a longer one is cut, and the model and the card say so.
	MaxChatToolResult = 64 << 10
)

// Chat is a conversation's summary.
type Chat struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Model string `json:"model"` // the name of a configured model
	// Group, when set, names a compare group: its conversations are sent
	// the same messages and shown side by side.
	Group string `json:"group,omitempty"`
	// Servers are the server ids whose tools the model is offered; empty
	// offers every ready server's. Tools, when set, narrow that to single
	// tools.
	Servers []string  `json:"servers,omitempty"`
	Tools   []ToolRef `json:"tools,omitempty"`
	// Always are the tools the person allowed for this conversation with
	// "Always" on an approval.
	Always []ToolRef `json:"always,omitempty"`
	// CodeMode offers the model code mode's search and execute instead of
	// the tools one by one (see relay/codemode).
	CodeMode bool      `json:"codeMode,omitempty"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Turns    int       `json:"turns"`
	// Running is set while a turn of the conversation runs.
	Running bool `json:"running,omitempty"`
	// AppContext is what the App views of the conversation's tool calls
	// gave its model (ui/update-model-context), newest last: each goes with
	// the person's next messages until its view replaces or clears it. The
	// relay keeps it; it is not sent to dashboards (up to 64 KiB a
	// conversation, in every snapshot, that no page shows).
	AppContext []ChatAppContext `json:"-"`
}

// ChatAppContext is what one tool call's App view gave the model.
type ChatAppContext struct {
	Call    string    `json:"call"`   // the [ChatToolCall]'s id
	Server  string    `json:"server"` // the call's server and tool, as the relay recorded them
	Tool    string    `json:"tool"`
	Text    string    `json:"text"` // the view's words: untrusted, at most MaxAppContext bytes
	Updated time.Time `json:"updated"`
}

// Limits of the context App views give a conversation's model.
const (
	MaxAppContext  = 8 << 10 // bytes of one view's context
	MaxAppContexts = 8       // views with context in one conversation; the oldest goes first
)

// ToolRef names one tool of one server.
type ToolRef struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

// TurnStatus is where a turn is.
type TurnStatus string

// Turn statuses.
const (
	TurnRunning     TurnStatus = "running"
	TurnDone        TurnStatus = "done"
	TurnStopped     TurnStatus = "stopped"     // the person pressed Stop
	TurnFailed      TurnStatus = "failed"      // the model or the relay failed; Error says why
	TurnInterrupted TurnStatus = "interrupted" // the relay stopped during the turn
	TurnStepLimit   TurnStatus = "step_limit"  // the model asked for more steps than allowed
)

// ChatTurn is one message of the person and everything that answered it.
type ChatTurn struct {
	ID    string `json:"id"`
	Chat  string `json:"chat"`
	N     int    `json:"n"` // its place in the conversation, from 0
	Model string `json:"model"`
	// Text is the person's message; Attachments what was attached to it.
	Text        string           `json:"text"`
	Attachments []ChatAttachment `json:"attachments,omitempty"`
	Parts       []ChatPart       `json:"parts,omitempty"`
	Status      TurnStatus       `json:"status"`
	Error       string           `json:"error,omitempty"`
	// Waiting names the servers the turn waits for before its first model
	// request, while they connect.
	Waiting []string  `json:"waiting,omitempty"`
	Usage   ChatUsage `json:"usage,omitzero"`
	// FirstToken is the time from the turn's start to the model's first
	// output, and Duration the whole turn's, in milliseconds.
	FirstToken int64     `json:"firstToken,omitempty"`
	Duration   int64     `json:"duration,omitempty"`
	Started    time.Time `json:"started"`
}

// ChatUsage counts tokens, as the model reported them.
type ChatUsage struct {
	In  int `json:"in,omitempty"`
	Out int `json:"out,omitempty"`
}

// AttachKind is what a message attaches.
type AttachKind string

// Attachment kinds.
const (
	AttachPrompt   AttachKind = "prompt"   // an MCP prompt's messages, with Arguments
	AttachResource AttachKind = "resource" // a resource's contents
)

// ChatAttachment is a prompt or a resource attached to a message. The
// relay reads it when the message is sent; Text is what the model was
// given, Error why it could not be read.
type ChatAttachment struct {
	Kind      AttachKind        `json:"kind"`
	Server    string            `json:"server"`
	Name      string            `json:"name,omitempty"` // AttachPrompt
	URI       string            `json:"uri,omitempty"`  // AttachResource
	Arguments map[string]string `json:"arguments,omitempty"`
	Text      string            `json:"text,omitempty"`
	Error     string            `json:"error,omitempty"`
}

// PartKind is what a part of a turn holds.
type PartKind string

// Part kinds.
const (
	PartText      PartKind = "text"      // the model's answer, Markdown
	PartReasoning PartKind = "reasoning" // the model's reasoning, shown collapsed
	PartTool      PartKind = "tool"      // a tool call
	PartNotice    PartKind = "notice"    // a line from the relay (a step limit, a cut result)
)

// ChatPart is one part of a turn, in the order the model produced them.
type ChatPart struct {
	Kind PartKind      `json:"kind"`
	Text string        `json:"text,omitempty"`
	Tool *ChatToolCall `json:"tool,omitempty"`
}

// ToolCallState is where a chat's tool call is.
type ToolCallState string

// Tool call states.
const (
	ToolStreaming ToolCallState = "streaming" // the model is still writing the call: PartialArguments holds what it wrote
	ToolApproval  ToolCallState = "approval"  // waiting for the person's Run, Deny or Always
	ToolRunning   ToolCallState = "running"
	ToolDone      ToolCallState = "done"      // Result holds the result (IsError for a tool's error)
	ToolFailed    ToolCallState = "failed"    // Error says why
	ToolDenied    ToolCallState = "denied"    // by the person or a policy
	ToolCancelled ToolCallState = "cancelled" // stopped
)

// ChatToolCall is a tool call the model made.
type ChatToolCall struct {
	ID        string          `json:"id"`   // the call's id: [Ask.Call] of the questions it raises
	Name      string          `json:"name"` // the name the model called
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// PartialArguments are the arguments as the model has written them so
	// far, while the call is [ToolStreaming]: the start of a JSON object,
	// at most [MaxPartialArguments] bytes.
	PartialArguments string          `json:"partialArguments,omitempty"`
	State            ToolCallState   `json:"state"`
	Progress         *Progress       `json:"progress,omitempty"`
	Result           *CallToolResult `json:"result,omitempty"`
	Error            string          `json:"error,omitempty"`
	// Cut is set when the result given to the model was cut to
	// [MaxChatToolResult].
	Cut bool `json:"cut,omitempty"`
}

// MaxPartialArguments bounds what a streaming tool call shows of its
// arguments.
const MaxPartialArguments = 64 << 10

// Change kinds of the chat. Key is always the conversation's id.
const (
	// KindChat puts a conversation's [Chat]; with Remove, it removes the
	// conversation and its turn.
	KindChat ChangeKind = "chat"
	// KindChatTurn puts the conversation's latest [ChatTurn], whole; with
	// Remove, drops it from the state (it stays stored).
	KindChatTurn ChangeKind = "chat_turn"
	// KindChatText appends to a text or reasoning part of the latest turn:
	// Value is a [ChatText].
	KindChatText ChangeKind = "chat_text"
	// KindChatPart puts one part of the latest turn: Value is a
	// [ChatPartChange].
	KindChatPart ChangeKind = "chat_part"
	// KindChatEnd sets how the latest turn is: Value is a [ChatTurnEnd].
	KindChatEnd ChangeKind = "chat_end"
)

// ChatText is the value of a [KindChatText] change: Text appended to part
// Index of turn Turn; an Index one past the last part starts a part of Kind.
type ChatText struct {
	Turn  string   `json:"turn"`
	Index int      `json:"index"`
	Kind  PartKind `json:"kind"`
	Text  string   `json:"text"`
}

// ChatPartChange is the value of a [KindChatPart] change: Part put at Index
// (one past the last appends it).
type ChatPartChange struct {
	Turn  string   `json:"turn"`
	Index int      `json:"index"`
	Part  ChatPart `json:"part"`
}

// ChatTurnEnd is the value of a [KindChatEnd] change: the turn's status and
// figures.
type ChatTurnEnd struct {
	Turn       string     `json:"turn"`
	Status     TurnStatus `json:"status"`
	Error      string     `json:"error,omitempty"`
	Waiting    []string   `json:"waiting,omitempty"`
	Usage      ChatUsage  `json:"usage,omitzero"`
	FirstToken int64      `json:"firstToken,omitempty"`
	Duration   int64      `json:"duration,omitempty"`
}

// Ops of the chat.
const (
	// OpChatModels lists the configured models: {} → [ChatModelsResult].
	OpChatModels OpName = "chat.models"
	// OpSetModelKey stores the person's own key for a model, sealed:
	// [ModelKeyArgs] → {}. An empty key removes it. It never comes back.
	OpSetModelKey OpName = "chat.set_key"
	// OpCreateChat starts conversations: [CreateChatArgs] → [CreateChatResult].
	OpCreateChat OpName = "chat.create"
	// OpUpdateChat renames a conversation or changes its model or tools:
	// [UpdateChatArgs] → {}.
	OpUpdateChat OpName = "chat.update"
	// OpSetChatAppContext sets what the App view of one of the
	// conversation's tool calls gives its model; an empty text clears it:
	// [SetChatAppContextArgs] → {}.
	OpSetChatAppContext OpName = "chat.appContext"
	// OpDeleteChat deletes a conversation: [ChatArgs] → {}.
	OpDeleteChat OpName = "chat.delete"
	// OpGetChat reads a conversation's turns: [ChatArgs] → [GetChatResult].
	OpGetChat OpName = "chat.get"
	// OpSearchChats finds the conversations whose title or messages hold a
	// text: [SearchChatsArgs] → [SearchChatsResult].
	OpSearchChats OpName = "chat.search"
	// OpSendChat sends a message to a conversation, and to every other
	// conversation of its compare group: [SendChatArgs] → {}.
	OpSendChat OpName = "chat.send"
	// OpStopChat stops a conversation's running turn (its group's with
	// Group): [ChatArgs] → {}.
	OpStopChat OpName = "chat.stop"
	// OpRetryChat runs the last turn again, after an edit of its message
	// when Text is set: [RetryChatArgs] → {}.
	OpRetryChat OpName = "chat.retry"
	// OpApproveTool answers a tool call waiting for approval:
	// [ApproveToolArgs] → {}.
	OpApproveTool OpName = "chat.approve"
	// OpCancelChatTool cancels one running tool call of a turn: [ChatToolArgs] → {}.
	OpCancelChatTool OpName = "chat.cancel_tool"
	// OpToolPolicies lists the person's approval policies: {} → [ToolPoliciesResult].
	OpToolPolicies OpName = "chat.policies"
	// OpSetToolPolicy sets one: [SetToolPolicyArgs] → {}.
	OpSetToolPolicy OpName = "chat.set_policy"
	// OpExportChat exports a conversation: [ExportChatArgs] → [ExportChatResult].
	OpExportChat OpName = "chat.export"
)

// ChatModel is a configured model as the dashboard sees it: never a key.
type ChatModel struct {
	Name string `json:"name"`
	// Provider is "openai" (chat completions) or "anthropic" (messages), or
	// "demo" for the scripted demo model, which is not an AI.
	Provider string `json:"provider"`
	Model    string `json:"model"` // what is asked for at the endpoint
	// Key says whether a key is configured by the operator; UserKey whether
	// the person set their own, which is used instead.
	Key     bool `json:"key,omitempty"`
	UserKey bool `json:"userKey,omitempty"`
	// Images: the model takes images.
	Images bool `json:"images,omitempty"`
}

// ChatModelsResult is the result of [OpChatModels]: the first is the default.
type ChatModelsResult struct {
	Models []ChatModel `json:"models"`
	// Help says how to configure a model, when none is.
	Help string `json:"help,omitempty"`
}

// ModelKeyArgs are the arguments of [OpSetModelKey].
type ModelKeyArgs struct {
	Model string `json:"model"`
	Key   string `json:"key"`
}

// CreateChatArgs are the arguments of [OpCreateChat]: one conversation per
// model (two or three make a compare group).
type CreateChatArgs struct {
	Models   []string  `json:"models"`
	Title    string    `json:"title,omitempty"`
	Servers  []string  `json:"servers,omitempty"`
	Tools    []ToolRef `json:"tools,omitempty"`
	CodeMode bool      `json:"codeMode,omitempty"`
}

// CreateChatResult is the result of [OpCreateChat].
type CreateChatResult struct {
	Chats []Chat `json:"chats"`
}

// UpdateChatArgs are the arguments of [OpUpdateChat]: what is set changes.
type UpdateChatArgs struct {
	Chat     string     `json:"chat"`
	Title    *string    `json:"title,omitempty"`
	Model    *string    `json:"model,omitempty"`
	Servers  *[]string  `json:"servers,omitempty"`
	Tools    *[]ToolRef `json:"tools,omitempty"`
	CodeMode *bool      `json:"codeMode,omitempty"`
}

// SetChatAppContextArgs are the arguments of [OpSetChatAppContext].
type SetChatAppContextArgs struct {
	Chat string `json:"chat"`
	Call string `json:"call"` // the tool call whose view speaks
	Text string `json:"text"`
}

// ChatArgs name one conversation.
type ChatArgs struct {
	Chat string `json:"chat"`
}

// GetChatResult is the result of [OpGetChat]: the stored turns, oldest first.
type GetChatResult struct {
	Chat  Chat       `json:"chat"`
	Turns []ChatTurn `json:"turns"`
}

// SearchChatsArgs are the arguments of [OpSearchChats].
type SearchChatsArgs struct {
	Query string `json:"query"`
}

// SearchChatsResult is the result of [OpSearchChats]: matching conversation
// ids, latest first.
type SearchChatsResult struct {
	Chats []string `json:"chats"`
}

// SendChatArgs are the arguments of [OpSendChat].
type SendChatArgs struct {
	Chat        string           `json:"chat"`
	Text        string           `json:"text"`
	Attachments []ChatAttachment `json:"attachments,omitempty"`
}

// RetryChatArgs are the arguments of [OpRetryChat].
type RetryChatArgs struct {
	Chat string  `json:"chat"`
	Text *string `json:"text,omitempty"`
}

// Approval is a person's answer to a tool call waiting for approval.
type Approval string

// Approvals.
const (
	ApproveRun    Approval = "run"
	ApproveDeny   Approval = "deny"
	ApproveAlways Approval = "always" // run, and every later call of the tool in this conversation
)

// ApproveToolArgs are the arguments of [OpApproveTool].
type ApproveToolArgs struct {
	Chat     string   `json:"chat"`
	Call     string   `json:"call"`
	Approval Approval `json:"approval"`
}

// ChatToolArgs name one tool call of a conversation's running turn.
type ChatToolArgs struct {
	Chat string `json:"chat"`
	Call string `json:"call"`
}

// ToolPolicy says whether the chat runs a tool.
type ToolPolicy string

// Tool policies. Without one, a tool hinted read-only runs and any other
// asks.
const (
	PolicyRun   ToolPolicy = "run"
	PolicyAsk   ToolPolicy = "ask"
	PolicyNever ToolPolicy = "never"
)

// ToolPolicyEntry is the policy of one tool.
type ToolPolicyEntry struct {
	ToolRef
	Policy ToolPolicy `json:"policy"`
}

// ToolPoliciesResult is the result of [OpToolPolicies].
type ToolPoliciesResult struct {
	Policies []ToolPolicyEntry `json:"policies"`
}

// SetToolPolicyArgs are the arguments of [OpSetToolPolicy]; an empty
// Policy returns the tool to the default.
type SetToolPolicyArgs struct {
	ToolRef
	Policy ToolPolicy `json:"policy"`
}

// ExportFormat is a format of [OpExportChat].
type ExportFormat string

// Export formats.
const (
	ExportMarkdown ExportFormat = "markdown"
	ExportJSON     ExportFormat = "json"
)

// ExportChatArgs are the arguments of [OpExportChat].
type ExportChatArgs struct {
	Chat   string       `json:"chat"`
	Format ExportFormat `json:"format"`
}

// ExportChatResult is the result of [OpExportChat]: a file to download.
type ExportChatResult struct {
	Name string `json:"name"`
	MIME string `json:"mime"`
	Body string `json:"body"`
}
