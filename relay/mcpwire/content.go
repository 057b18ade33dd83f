package mcpwire

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxTimeRunes caps an annotation's lastModified.
const maxTimeRunes = 64

// content converts one content block; an unknown kind is an error. The data
// and text are passed on as they came (the result's size is capped by the
// connection); what describes them is capped and sanitized.
func content(c mcp.Content) (wire.Content, error) {
	switch c := c.(type) {
	case *mcp.TextContent:
		return wire.Content{Type: wire.ContentText, Text: c.Text, Annotations: annotations(c.Annotations)}, nil
	case *mcp.ImageContent:
		return wire.Content{Type: wire.ContentImage, MIMEType: line(c.MIMEType, maxMIMERunes), Data: base64.StdEncoding.EncodeToString(c.Data), Annotations: annotations(c.Annotations)}, nil
	case *mcp.AudioContent:
		return wire.Content{Type: wire.ContentAudio, MIMEType: line(c.MIMEType, maxMIMERunes), Data: base64.StdEncoding.EncodeToString(c.Data), Annotations: annotations(c.Annotations)}, nil
	case *mcp.ResourceLink:
		return resourceLink(c), nil
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return wire.Content{}, fmt.Errorf("embedded resource without contents")
		}
		b, err := json.Marshal(resourceContents(c.Resource))
		if err != nil {
			return wire.Content{}, fmt.Errorf("embedded resource: %w", err)
		}
		return wire.Content{Type: wire.ContentResource, Resource: b, Annotations: annotations(c.Annotations)}, nil
	default:
		return wire.Content{}, fmt.Errorf("unsupported content %T", c)
	}
}

// resourceLink converts a link to a resource; one whose URI is unusable
// has none: a link that could not be read.
func resourceLink(c *mcp.ResourceLink) wire.Content {
	out := wire.Content{
		Type:        wire.ContentResourceLink,
		Name:        line(c.Name, maxTitleRunes),
		Title:       line(c.Title, maxTitleRunes),
		Description: text(c.Description, maxDescriptionRunes),
		MIMEType:    line(c.MIMEType, maxMIMERunes),
		Annotations: annotations(c.Annotations),
	}
	if validKey(c.URI, maxURIRunes) {
		out.URI = c.URI
	}
	if c.Size != nil {
		out.Size = max(*c.Size, 0)
	}
	return out
}

// annotations keeps the known audiences, a priority within 0..1 and a
// one-line time; nil when nothing is left.
func annotations(a *mcp.Annotations) *wire.ContentAnnotations {
	if a == nil {
		return nil
	}
	out := &wire.ContentAnnotations{LastModified: line(a.LastModified, maxTimeRunes)}
	for _, r := range a.Audience {
		if r := wire.Role(r); (r == wire.RoleUser || r == wire.RoleAssistant) && !slices.Contains(out.Audience, r) {
			out.Audience = append(out.Audience, r)
		}
	}
	if a.Priority > 0 && a.Priority <= 1 {
		out.Priority = a.Priority
	}
	if out.LastModified == "" && out.Priority == 0 && len(out.Audience) == 0 {
		return nil
	}
	return out
}

// resourceContents converts the contents of one resource; a blob travels
// as base64.
func resourceContents(c *mcp.ResourceContents) wire.ResourceContents {
	out := wire.ResourceContents{URI: c.URI, MIMEType: line(c.MIMEType, maxMIMERunes), Text: c.Text}
	if c.Blob != nil {
		out.Blob = base64.StdEncoding.EncodeToString(c.Blob)
	}
	return out
}

// rawJSON marshals v, or returns nil when v is nil, cannot be marshalled or
// is over max bytes.
func rawJSON(v any, max int) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > max || string(b) == "null" {
		return nil
	}
	return b
}
