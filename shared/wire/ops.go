package wire

import "encoding/json"

// OpName names an op: what a dashboard asks the relay to do.
type OpName string

// Op names and their arguments and results.
const (
	// OpAddServer adds a server: [AddServerArgs] → [AddServerResult].
	OpAddServer OpName = "server.add"
	// OpRemoveServer removes a server and forgets it: [ServerArgs] → {}.
	OpRemoveServer OpName = "server.remove"
	// OpRetryServer reconnects a server now: [ServerArgs] → {}.
	OpRetryServer OpName = "server.retry"
	// OpCallTool calls a tool: [CallToolArgs] → [CallToolResult].
	// A result with IsError set is still a result, not an error frame.
	OpCallTool OpName = "tool.call"
	// OpGetPrompt gets a prompt: [GetPromptArgs] → [GetPromptResult].
	OpGetPrompt OpName = "prompt.get"
	// OpReadResource reads a resource: [ReadResourceArgs] → [ReadResourceResult].
	OpReadResource OpName = "resource.read"
	// OpCancel cancels a running op: [CancelArgs] → {}. The cancelled op is
	// answered with a [CodeCancelled] error.
	OpCancel OpName = "op.cancel"
)

// AddServerArgs are the arguments of [OpAddServer].
type AddServerArgs struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	Transport string `json:"transport,omitempty"` // TransportStreamable (default) or TransportSSE
	// ID is a caller-chosen id (normalized by the relay); empty for a generated one.
	ID string `json:"id,omitempty"`
	// Headers are sent upstream on every request; their values are secrets.
	Headers map[string]string `json:"headers,omitempty"`
	Retry   *Retry            `json:"retry,omitempty"`
}

// AddServerResult is the result of [OpAddServer]. Existing is set when a
// server with the same name and normalized URL was already registered.
type AddServerResult struct {
	ID       string `json:"id"`
	Existing bool   `json:"existing,omitempty"`
}

// ServerArgs name one server.
type ServerArgs struct {
	Server string `json:"server"`
}

// CallToolArgs are the arguments of [OpCallTool].
type CallToolArgs struct {
	Server    string          `json:"server"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"` // a JSON object
	Call      string          `json:"call,omitempty"`      // the call's id in the state, chosen by the dashboard
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

// Content is one MCP content block. Only the fields of its type are set.
type Content struct {
	Type     string          `json:"type"` // text, image, audio, resource_link, resource
	Text     string          `json:"text,omitempty"`
	MIMEType string          `json:"mimeType,omitempty"`
	Data     string          `json:"data,omitempty"` // base64, for image and audio
	URI      string          `json:"uri,omitempty"`  // for resource_link
	Name     string          `json:"name,omitempty"` // for resource_link
	Resource json.RawMessage `json:"resource,omitempty"`
	// Title, Description and Size (in bytes, 0 when unknown) describe a
	// resource_link's resource.
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Size        int64               `json:"size,omitempty"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
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
	Role    string  `json:"role"`
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
func (a ServerArgs) ServerID() string { return a.Server }

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
