package wire

import "encoding/json"

// The arguments and results of the ops that call a server ([OpCallTool],
// [OpGetPrompt], [OpReadResource]) and of [OpCancel].

// CallToolArgs are the arguments of [OpCallTool].
type CallToolArgs struct {
	Server    string          `json:"server"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"` // a JSON object
	Call      string          `json:"call,omitempty"`      // the call's id in the state, chosen by the dashboard
	// App, when set, is the ui:// URI of the view that makes the call: the
	// tool must be of the view's server and visible to apps.
	App string `json:"app,omitempty"`
}

// CallToolResult is an MCP tool result.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	// OutputCheck is the relay's check of StructuredContent against the
	// tool's outputSchema, set when the tool has one.
	OutputCheck *OutputCheck `json:"outputCheck,omitempty"`
}

// GetPromptArgs are the arguments of [OpGetPrompt].
type GetPromptArgs struct {
	Server    string            `json:"server"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Call      string            `json:"call,omitempty"` // as in CallToolArgs
}

// GetPromptResult is an MCP prompt result.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptMessage is one message of a [GetPromptResult].
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// ReadResourceArgs are the arguments of [OpReadResource].
type ReadResourceArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
	Call   string `json:"call,omitempty"` // as in CallToolArgs
}

// ReadResourceResult is an MCP resource read result.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
}

// ResourceContents is the content of one resource.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"` // base64
}

// CancelArgs name the op to cancel.
type CancelArgs struct {
	ID string `json:"id"`
}

// ServerID returns the server the arguments name.
func (a CallToolArgs) ServerID() string { return a.Server }

// ServerID returns the server the arguments name.
func (a GetPromptArgs) ServerID() string { return a.Server }

// ServerID returns the server the arguments name.
func (a ReadResourceArgs) ServerID() string { return a.Server }

// CallID returns the id of the call the arguments make.
func (a CallToolArgs) CallID() string { return a.Call }

// CallID returns the id of the call the arguments make.
func (a GetPromptArgs) CallID() string { return a.Call }

// CallID returns the id of the call the arguments make.
func (a ReadResourceArgs) CallID() string { return a.Call }
