package conn

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Content types of [wire.Content].
const (
	contentText         = "text"
	contentImage        = "image"
	contentAudio        = "audio"
	contentResourceLink = "resource_link"
	contentResource     = "resource"
)

// convertImplementation converts a server's identity; nil stays nil.
func convertImplementation(impl *mcp.Implementation) *wire.Implementation {
	if impl == nil {
		return nil
	}
	return &wire.Implementation{
		Name:    line(impl.Name, maxTitleRunes),
		Title:   line(impl.Title, maxTitleRunes),
		Version: line(impl.Version, maxVersionRunes),
	}
}

// convertTool converts a listed tool; ok is false when it must be dropped.
// Schemas over maxSchemaBytes and annotations over maxAnnotationsBytes are
// left out.
func convertTool(t *mcp.Tool) (_ wire.Tool, ok bool) {
	if t == nil || !validKey(t.Name, maxKeyRunes) {
		return wire.Tool{}, false
	}
	var annotations json.RawMessage
	if t.Annotations != nil {
		a := *t.Annotations
		a.Title = line(a.Title, maxTitleRunes)
		annotations = rawJSON(&a, maxAnnotationsBytes)
	}
	return wire.Tool{
		Name:         t.Name,
		Title:        line(t.Title, maxTitleRunes),
		Description:  text(t.Description, maxDescriptionRunes),
		InputSchema:  rawJSON(t.InputSchema, maxSchemaBytes),
		OutputSchema: rawJSON(t.OutputSchema, maxSchemaBytes),
		Annotations:  annotations,
		Icons:        convertIcons(t.Icons),
	}, true
}

// convertPrompt converts a listed prompt; ok is false when it must be
// dropped, which includes a prompt with an unusable argument name or more
// than maxPromptArguments arguments: without all its arguments it could not
// be got.
func convertPrompt(p *mcp.Prompt) (_ wire.Prompt, ok bool) {
	if p == nil || !validKey(p.Name, maxKeyRunes) || len(p.Arguments) > maxPromptArguments {
		return wire.Prompt{}, false
	}
	out := wire.Prompt{
		Name:        p.Name,
		Title:       line(p.Title, maxTitleRunes),
		Description: text(p.Description, maxDescriptionRunes),
		Icons:       convertIcons(p.Icons),
	}
	for _, a := range p.Arguments {
		if a == nil || !validKey(a.Name, maxKeyRunes) {
			return wire.Prompt{}, false
		}
		out.Arguments = append(out.Arguments, wire.PromptArgument{
			Name:        a.Name,
			Title:       line(a.Title, maxTitleRunes),
			Description: text(a.Description, maxDescriptionRunes),
			Required:    a.Required,
		})
	}
	return out, true
}

// convertResource converts a listed resource; ok is false when it must be
// dropped.
func convertResource(r *mcp.Resource) (_ wire.Resource, ok bool) {
	if r == nil || !validKey(r.URI, maxURIRunes) {
		return wire.Resource{}, false
	}
	return wire.Resource{
		URI:         r.URI,
		Name:        line(r.Name, maxTitleRunes),
		Title:       line(r.Title, maxTitleRunes),
		Description: text(r.Description, maxDescriptionRunes),
		MIMEType:    line(r.MIMEType, maxMIMERunes),
		Size:        max(r.Size, 0),
		Icons:       convertIcons(r.Icons),
	}, true
}

// convertTemplate converts a listed resource template; ok is false when it
// must be dropped.
func convertTemplate(t *mcp.ResourceTemplate) (_ wire.ResourceTemplate, ok bool) {
	if t == nil || !validKey(t.URITemplate, maxURIRunes) {
		return wire.ResourceTemplate{}, false
	}
	return wire.ResourceTemplate{
		URITemplate: t.URITemplate,
		Name:        line(t.Name, maxTitleRunes),
		Title:       line(t.Title, maxTitleRunes),
		Description: text(t.Description, maxDescriptionRunes),
		MIMEType:    line(t.MIMEType, maxMIMERunes),
		Icons:       convertIcons(t.Icons),
	}, true
}

// convertCallToolResult converts a tool result. Its content is data, passed
// on as it came; only its size is checked, by the caller.
func convertCallToolResult(r *mcp.CallToolResult) (*wire.CallToolResult, error) {
	out := &wire.CallToolResult{Content: []wire.Content{}, IsError: r.IsError}
	for _, c := range r.Content {
		wc, err := convertContent(c)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, wc)
	}
	if r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structured content: %w", err)
		}
		out.StructuredContent = b
	}
	return out, nil
}

// convertGetPromptResult converts the messages of a prompt.
func convertGetPromptResult(r *mcp.GetPromptResult) (*wire.GetPromptResult, error) {
	out := &wire.GetPromptResult{
		Description: text(r.Description, maxDescriptionRunes),
		Messages:    []wire.PromptMessage{},
	}
	for _, m := range r.Messages {
		if m == nil {
			continue
		}
		c, err := convertContent(m.Content)
		if err != nil {
			return nil, err
		}
		out.Messages = append(out.Messages, wire.PromptMessage{Role: line(string(m.Role), maxTitleRunes), Content: c})
	}
	return out, nil
}

// convertReadResourceResult converts the contents of a resource.
func convertReadResourceResult(r *mcp.ReadResourceResult) *wire.ReadResourceResult {
	out := &wire.ReadResourceResult{Contents: []wire.ResourceContents{}}
	for _, c := range r.Contents {
		if c != nil {
			out.Contents = append(out.Contents, convertResourceContents(c))
		}
	}
	return out
}

// convertContent converts one content block; an unknown kind is an error.
// The data and text are passed on as they came (the result's size is
// capped by the caller); what describes them is capped and sanitized.
func convertContent(c mcp.Content) (wire.Content, error) {
	switch c := c.(type) {
	case *mcp.TextContent:
		return wire.Content{Type: contentText, Text: c.Text, Annotations: convertAnnotations(c.Annotations)}, nil
	case *mcp.ImageContent:
		return wire.Content{Type: contentImage, MIMEType: line(c.MIMEType, maxMIMERunes), Data: base64.StdEncoding.EncodeToString(c.Data), Annotations: convertAnnotations(c.Annotations)}, nil
	case *mcp.AudioContent:
		return wire.Content{Type: contentAudio, MIMEType: line(c.MIMEType, maxMIMERunes), Data: base64.StdEncoding.EncodeToString(c.Data), Annotations: convertAnnotations(c.Annotations)}, nil
	case *mcp.ResourceLink:
		out := wire.Content{
			Type:        contentResourceLink,
			Name:        line(c.Name, maxTitleRunes),
			Title:       line(c.Title, maxTitleRunes),
			Description: text(c.Description, maxDescriptionRunes),
			MIMEType:    line(c.MIMEType, maxMIMERunes),
			Annotations: convertAnnotations(c.Annotations),
		}
		if validKey(c.URI, maxURIRunes) {
			out.URI = c.URI // else no URI: a link that could not be read
		}
		if c.Size != nil {
			out.Size = max(*c.Size, 0)
		}
		return out, nil
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return wire.Content{}, fmt.Errorf("embedded resource without contents")
		}
		b, err := json.Marshal(convertResourceContents(c.Resource))
		if err != nil {
			return wire.Content{}, fmt.Errorf("embedded resource: %w", err)
		}
		return wire.Content{Type: contentResource, Resource: b, Annotations: convertAnnotations(c.Annotations)}, nil
	default:
		return wire.Content{}, fmt.Errorf("unsupported content %T", c)
	}
}

// maxTimeRunes caps an annotation's lastModified.
const maxTimeRunes = 64

// convertAnnotations keeps the known audiences, a priority within 0..1 and
// a one-line time; nil when nothing is left.
func convertAnnotations(a *mcp.Annotations) *wire.ContentAnnotations {
	if a == nil {
		return nil
	}
	out := &wire.ContentAnnotations{LastModified: line(a.LastModified, maxTimeRunes)}
	for _, r := range a.Audience {
		if r := string(r); (r == wire.AudienceUser || r == wire.AudienceAssistant) && !slices.Contains(out.Audience, r) {
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

// convertResourceContents converts the contents of one resource; a blob
// travels as base64.
func convertResourceContents(c *mcp.ResourceContents) wire.ResourceContents {
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
