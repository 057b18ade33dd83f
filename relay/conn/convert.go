package conn

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
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
