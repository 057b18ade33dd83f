package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// kinds is a set of lists.
type kinds uint8

const (
	kindTools     kinds = 1 << iota
	kindPrompts         // prompts
	kindResources       // resources and resource templates
	allKinds      = kindTools | kindPrompts | kindResources
)

// String names the lists of k, for logs.
func (k kinds) String() string {
	var names []string
	for _, n := range []struct {
		k    kinds
		name string
	}{{kindTools, "tools"}, {kindPrompts, "prompts"}, {kindResources, "resources"}} {
		if k&n.k != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// discover lists the kinds k of s into c.state, each only if the server
// advertises it; a list the server does not advertise becomes empty.
func (c *Conn) discover(s *session, k kinds) error {
	ctx, cancel := context.WithTimeout(s.ctx, discoverTimeout)
	defer cancel()
	caps := s.cs.InitializeResult().Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	if k&kindTools != 0 {
		var tools []wire.Tool
		if caps.Tools != nil {
			c.ra.Tasks.ResetTools()
			var err error
			if tools, err = c.listTools(ctx, s.cs); err != nil {
				return err
			}
			c.markTaskSupport(tools)
		}
		c.state.Tools = tools
		c.mu.Lock()
		s.tools = names(tools, func(t wire.Tool) string { return t.Name })
		s.outputs = outputSchemas(tools)
		c.mu.Unlock()
	}
	if k&kindPrompts != 0 {
		var prompts []wire.Prompt
		if caps.Prompts != nil {
			var err error
			if prompts, err = c.listPrompts(ctx, s.cs); err != nil {
				return err
			}
		}
		c.state.Prompts = prompts
		c.mu.Lock()
		s.prompts = names(prompts, func(p wire.Prompt) string { return p.Name })
		c.mu.Unlock()
	}
	if k&kindResources != 0 {
		var resources []wire.Resource
		var templates []wire.ResourceTemplate
		if caps.Resources != nil {
			var err error
			if resources, err = c.listResources(ctx, s.cs); err != nil {
				return err
			}
			if templates, err = c.listTemplates(ctx, s.cs); err != nil {
				return err
			}
		}
		c.state.Resources, c.state.Templates = resources, templates
	}
	return nil
}

// outputSchemas returns the outputSchemas of tools, by name.
func outputSchemas(tools []wire.Tool) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, t := range tools {
		if t.OutputSchema != nil {
			out[t.Name] = t.OutputSchema
		}
	}
	return out
}

// names returns the set of keys of items.
func names[T any](items []T, key func(T) string) map[string]bool {
	set := make(map[string]bool, len(items))
	for _, it := range items {
		set[key(it)] = true
	}
	return set
}

// listTools lists the tools, their icons inlined (see icons.go) and their
// schemas in the server's key order when it was read along (relay/readalong).
func (c *Conn) listTools(ctx context.Context, cs *mcp.ClientSession) ([]wire.Tool, error) {
	tools, err := collect(ctx, c, "tools",
		func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
			r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Tools, r.NextCursor, nil
		},
		c.convertListedTool, func(t wire.Tool) string { return t.Name })
	if err != nil {
		return nil, err
	}
	c.inlineIcons(ctx, iconsOf(tools, func(t *wire.Tool) *[]wire.Icon { return &t.Icons }))
	return tools, nil
}

// listPrompts lists the prompts, their icons inlined.
func (c *Conn) listPrompts(ctx context.Context, cs *mcp.ClientSession) ([]wire.Prompt, error) {
	prompts, err := collect(ctx, c, "prompts",
		func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
			r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		},
		convertPrompt, func(p wire.Prompt) string { return p.Name })
	if err != nil {
		return nil, err
	}
	c.inlineIcons(ctx, iconsOf(prompts, func(p *wire.Prompt) *[]wire.Icon { return &p.Icons }))
	return prompts, nil
}

// listResources lists the resources, their icons inlined.
func (c *Conn) listResources(ctx context.Context, cs *mcp.ClientSession) ([]wire.Resource, error) {
	resources, err := collect(ctx, c, "resources",
		func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		},
		convertResource, func(r wire.Resource) string { return r.URI })
	if err != nil {
		return nil, err
	}
	c.inlineIcons(ctx, iconsOf(resources, func(r *wire.Resource) *[]wire.Icon { return &r.Icons }))
	return resources, nil
}

// listTemplates lists resource templates. A server with resources but
// without resources/templates/list has no templates.
func (c *Conn) listTemplates(ctx context.Context, cs *mcp.ClientSession) ([]wire.ResourceTemplate, error) {
	templates, err := collect(ctx, c, "resource templates",
		func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		},
		convertTemplate, func(t wire.ResourceTemplate) string { return t.URITemplate })
	if rpcErr := serverError(err); rpcErr != nil && rpcErr.Code == jsonrpc.CodeMethodNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.inlineIcons(ctx, iconsOf(templates, func(t *wire.ResourceTemplate) *[]wire.Icon { return &t.Icons }))
	return templates, nil
}

// convertListedTool is convertTool with the schemas in the server's order
// when it was read along.
func (c *Conn) convertListedTool(t *mcp.Tool) (wire.Tool, bool) {
	out, ok := convertTool(t)
	for _, s := range []*json.RawMessage{&out.InputSchema, &out.OutputSchema} {
		if *s != nil {
			*s, _ = c.ra.Schemas.Ordered(*s) // a canonical encoding encodes again
		}
	}
	return out, ok
}

// collect follows the pages of one list, converting its items. It stops at
// maxListPages pages, maxListItems items or maxListBytes of converted JSON,
// and at a cursor seen before; it drops items that do not convert and items
// whose key was seen before. What it leaves out is logged.
func collect[S any, W any](
	ctx context.Context, c *Conn, list string,
	page func(ctx context.Context, cursor string) ([]S, string, error),
	convert func(S) (W, bool), key func(W) string,
) ([]W, error) {
	var (
		out     []W
		seen    = make(map[string]bool)
		cursors = make(map[string]bool)
		cursor  string
		size    int
		dropped int
	)
pages:
	for n := 0; ; n++ {
		if n == maxListPages {
			c.log.Warn("mcp list cut at the page limit", "list", list, "pages", maxListPages)
			break
		}
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", list, err)
		}
		for _, it := range items {
			w, ok := convert(it)
			if !ok || seen[key(w)] {
				dropped++
				continue
			}
			b, err := json.Marshal(w)
			if err != nil {
				dropped++
				continue
			}
			if len(out) == maxListItems || size+len(b) > maxListBytes {
				c.log.Warn("mcp list cut at the size limit", "list", list, "items", len(out), "bytes", size)
				break pages
			}
			seen[key(w)] = true
			size += len(b)
			out = append(out, w)
		}
		if next == "" {
			break
		}
		if cursors[next] {
			c.log.Warn("mcp list repeats a cursor; stopped", "list", list)
			break
		}
		cursors[next] = true
		cursor = next
	}
	if dropped > 0 {
		c.log.Warn("mcp list items dropped: unusable or duplicate keys", "list", list, "dropped", dropped)
	}
	return out, nil
}
