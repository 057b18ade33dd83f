package wire

import "encoding/json"

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
