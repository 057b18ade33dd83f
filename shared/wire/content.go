package wire

// ContentAnnotations are the hints a server attaches to a content block
// (MCP annotations): for whom it is, how much it matters, when it changed.
type ContentAnnotations struct {
	// Audience holds "user", "assistant" or both.
	Audience []string `json:"audience,omitempty"`
	// Priority runs from 0 (entirely optional) to 1 (effectively required);
	// 0 also when the server gave none.
	Priority float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 time as the server wrote it, sanitized.
	LastModified string `json:"lastModified,omitempty"`
}

// Content audiences.
const (
	AudienceUser      = "user"
	AudienceAssistant = "assistant"
)
