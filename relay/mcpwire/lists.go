package mcpwire

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Converter converts one server's lists for a dashboard: every item
// capped and sanitized, those whose key is unusable dropped, icons
// inlined (icons.go). It remembers the icons it fetched for its life. Its
// methods are safe for concurrent use.
type Converter struct {
	icons *http.Client // fetches https icons; nil fetches none
	log   *slog.Logger
	cache iconCache
}

// NewConverter returns a converter whose https icons are fetched through
// icons: the relay's guarded client, without any server's credentials (nil:
// https icons are dropped). log hears of what it drops.
func NewConverter(icons *http.Client, log *slog.Logger) *Converter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Converter{icons: icons, log: log}
}

// Tools converts a server's tools. support is each tool's
// execution.taskSupport as the server sent it (only wire's TaskSupport*
// values are kept), uncallable why the connection will not call a tool, by
// name.
func (cv *Converter) Tools(ctx context.Context, tools []*mcp.Tool, support map[string]wire.TaskSupport, uncallable map[string]string) []wire.Tool {
	out := convertList(cv, "tools", tools, convertTool)
	for i := range out {
		switch s := support[out[i].Name]; s {
		case wire.TaskSupportRequired, wire.TaskSupportOptional, wire.TaskSupportForbidden:
			out[i].TaskSupport = s
		}
		out[i].Uncallable = line(uncallable[out[i].Name], maxDescriptionRunes)
	}
	cv.inlineIcons(ctx, iconsOf(out, func(t *wire.Tool) *[]wire.Icon { return &t.Icons }))
	return out
}

// Prompts converts a server's prompts.
func (cv *Converter) Prompts(ctx context.Context, prompts []*mcp.Prompt) []wire.Prompt {
	out := convertList(cv, "prompts", prompts, convertPrompt)
	cv.inlineIcons(ctx, iconsOf(out, func(p *wire.Prompt) *[]wire.Icon { return &p.Icons }))
	return out
}

// Resources converts a server's resources.
func (cv *Converter) Resources(ctx context.Context, resources []*mcp.Resource) []wire.Resource {
	out := convertList(cv, "resources", resources, convertResource)
	cv.inlineIcons(ctx, iconsOf(out, func(r *wire.Resource) *[]wire.Icon { return &r.Icons }))
	return out
}

// Templates converts a server's resource templates.
func (cv *Converter) Templates(ctx context.Context, templates []*mcp.ResourceTemplate) []wire.ResourceTemplate {
	out := convertList(cv, "resource templates", templates, convertTemplate)
	cv.inlineIcons(ctx, iconsOf(out, func(t *wire.ResourceTemplate) *[]wire.Icon { return &t.Icons }))
	return out
}

// convertList converts items, dropping those that do not convert (their
// key is unusable) and logging how many; nil when none is left.
func convertList[S any, W any](cv *Converter, list string, items []S, convert func(S) (W, bool)) []W {
	var out []W
	for _, it := range items {
		if w, ok := convert(it); ok {
			out = append(out, w)
		}
	}
	if dropped := len(items) - len(out); dropped > 0 {
		cv.log.Warn("mcp list items dropped: unusable keys", "list", list, "dropped", dropped)
	}
	return out
}

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
		UI:           ToolUI(t.Meta),
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
