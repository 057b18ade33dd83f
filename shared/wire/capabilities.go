package wire

// Capabilities are what an MCP server declared it supports when it
// initialized: the dashboard offers only what the server declared.
type Capabilities struct {
	Prompts     *ListCapability      `json:"prompts,omitempty"`
	Resources   *ResourcesCapability `json:"resources,omitempty"`
	Tools       *ListCapability      `json:"tools,omitempty"`
	Logging     bool                 `json:"logging,omitempty"`
	Completions bool                 `json:"completions,omitempty"`
	Tasks       bool                 `json:"tasks,omitempty"`
}

// ListCapability is a declared list feature (prompts, tools).
type ListCapability struct {
	ListChanged bool `json:"listChanged,omitempty"` // the server notifies list changes
}

// ResourcesCapability is the declared resources feature.
type ResourcesCapability struct {
	ListChanged bool `json:"listChanged,omitempty"` // the server notifies list changes
	Subscribe   bool `json:"subscribe,omitempty"`   // resources can be subscribed to
}

// CanComplete reports whether the server declared completions.
func (c *Capabilities) CanComplete() bool { return c != nil && c.Completions }

// CanSubscribe reports whether the server declared resource subscriptions.
func (c *Capabilities) CanSubscribe() bool {
	return c != nil && c.Resources != nil && c.Resources.Subscribe
}
