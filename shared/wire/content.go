package wire

import "encoding/json"

// ContentType is the type of a content block ([Content], [SamplingContent]).
type ContentType string

// Content types.
const (
	ContentText         ContentType = "text"          // Text holds the text
	ContentImage        ContentType = "image"         // Data holds the image, MIMEType its type
	ContentAudio        ContentType = "audio"         // Data holds the audio, MIMEType its type
	ContentResourceLink ContentType = "resource_link" // URI names a resource the server has
	ContentResource     ContentType = "resource"      // Resource holds an embedded resource's contents
	ContentToolUse      ContentType = "tool_use"      // sampling only: a tool the writer calls
	ContentToolResult   ContentType = "tool_result"   // sampling only: the result of a tool_use
)

// Content is one MCP content block. Only the fields of its type are set.
type Content struct {
	Type     ContentType     `json:"type"` // ContentText, ContentImage, ContentAudio, ContentResourceLink or ContentResource
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
	// Audience holds RoleUser, RoleAssistant or both.
	Audience []Role `json:"audience,omitempty"`
	// Priority runs from 0 (entirely optional) to 1 (effectively required);
	// 0 also when the server gave none.
	Priority float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 time as the server wrote it, sanitized.
	LastModified string `json:"lastModified,omitempty"`
}

// Media types the dashboard renders from data, and the relay accepts in an
// answer; anything else (SVG, which can carry script, above all) is shown as
// a description only.
var (
	imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}
	audioTypes = []string{"audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/webm", "audio/flac", "audio/aac", "audio/mp4"}
)

// RenderableMedia reports whether a block of content type typ
// ([ContentImage] or [ContentAudio]) with media type mime may be rendered
// from its data.
func RenderableMedia(typ ContentType, mime string) bool {
	var allowed []string
	switch typ {
	case ContentImage:
		allowed = imageTypes
	case ContentAudio:
		allowed = audioTypes
	}
	for _, t := range allowed {
		if t == mime {
			return true
		}
	}
	return false
}
