package wire

// Role names who speaks a message of a conversation (an MCP role): in a
// prompt's messages, a sampling request's, and a content block's audience.
type Role string

// Roles.
const (
	RoleUser      Role = "user"      // the person, or the client speaking for them
	RoleAssistant Role = "assistant" // the model
)
