package wire

// ServerCapabilities are the capabilities a server declared when it
// initialized, as the Info tab shows them. Experimental lists the names of
// its experimental capabilities, sorted.
type ServerCapabilities struct {
	Tools        *ListCapability     `json:"tools,omitempty"`
	Prompts      *ListCapability     `json:"prompts,omitempty"`
	Resources    *ResourceCapability `json:"resources,omitempty"`
	Logging      bool                `json:"logging,omitempty"`
	Completions  bool                `json:"completions,omitempty"`
	Tasks        *TaskCapability     `json:"tasks,omitempty"`
	Experimental []string            `json:"experimental,omitempty"`
}

// ListCapability is a declared list (tools, prompts).
type ListCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourceCapability is the declared resources capability.
type ResourceCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// TaskCapability is the declared tasks capability (MCP 2025-11-25,
// experimental): ToolCall means tools/call may be task-augmented.
type TaskCapability struct {
	List     bool `json:"list,omitempty"`
	Cancel   bool `json:"cancel,omitempty"`
	ToolCall bool `json:"toolCall,omitempty"`
}

// ClientCapability names a client capability the relay may advertise to a
// server ([Server.ClientCapabilities]).
type ClientCapability string

// Client capabilities.
const (
	ClientCapElicitationForm ClientCapability = "elicitation.form"  // elicitation forms
	ClientCapElicitationURL  ClientCapability = "elicitation.url"   // URL elicitations
	ClientCapSampling        ClientCapability = "sampling"          // sampling/createMessage
	ClientCapSamplingTools   ClientCapability = "sampling.tools"    // tools in sampling requests
	ClientCapRoots           ClientCapability = "roots.listChanged" // roots, with change notifications
)

// CanComplete reports whether the server declared completions.
func (c *ServerCapabilities) CanComplete() bool { return c != nil && c.Completions }

// CanSubscribe reports whether the server declared resource subscriptions.
func (c *ServerCapabilities) CanSubscribe() bool {
	return c != nil && c.Resources != nil && c.Resources.Subscribe
}
