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

// discover lists the kinds k of s into new [Lists] in c.state, each only
// if the server advertises it; a list the server does not advertise
// becomes empty. The other lists stay as they were.
func (c *Conn) discover(s *session, k kinds) error {
	ctx, cancel := context.WithTimeout(s.ctx, discoverTimeout)
	defer cancel()
	caps := declared(s)
	next := Lists{}
	if c.state.Lists != nil {
		next = *c.state.Lists
	}
	if k&kindTools != 0 {
		if err := c.discoverTools(ctx, s, caps, &next); err != nil {
			return err
		}
	}
	if k&kindPrompts != 0 {
		var prompts []*mcp.Prompt
		if caps.Prompts != nil {
			var err error
			if prompts, err = collect(ctx, c, "prompts", promptsOf(s.cs), func(p *mcp.Prompt) string { return p.Name }); err != nil {
				return err
			}
		}
		next.Prompts = prompts
		c.mu.Lock()
		s.prompts = names(prompts, func(p *mcp.Prompt) string { return p.Name })
		c.mu.Unlock()
	}
	if k&kindResources != 0 {
		next.Resources, next.Templates = nil, nil
		if caps.Resources != nil {
			var err error
			if next.Resources, err = collect(ctx, c, "resources", resourcesOf(s.cs), func(r *mcp.Resource) string { return r.URI }); err != nil {
				return err
			}
			if next.Templates, err = c.listTemplates(ctx, s.cs); err != nil {
				return err
			}
		}
	}
	c.state.Lists = &next
	return nil
}

// discoverTools lists the tools into next, their schemas in the server's
// key order, with their task support.
func (c *Conn) discoverTools(ctx context.Context, s *session, caps *mcp.ServerCapabilities, next *Lists) error {
	var tools []*mcp.Tool
	if caps.Tools != nil {
		c.ra.Tasks.ResetTools()
		var err error
		if tools, err = collect(ctx, c, "tools", toolsOf(s.cs), func(t *mcp.Tool) string { return t.Name }); err != nil {
			return err
		}
		c.ordered(tools)
	}
	next.Tools = tools
	next.TaskSupport, next.Uncallable = taskSupports(c.ra.Tasks.Supports()), nil
	if !c.ra.Tasks.ToolCalls() {
		for name, support := range next.TaskSupport {
			if support == wire.TaskSupportRequired {
				if next.Uncallable == nil {
					next.Uncallable = map[string]string{}
				}
				next.Uncallable[name] = uncallableNoTasks
			}
		}
	}
	c.mu.Lock()
	s.tools = names(tools, func(t *mcp.Tool) string { return t.Name })
	c.mu.Unlock()
	return nil
}

// taskSupports types the execution.taskSupport the server listed, by tool
// name.
func taskSupports(listed map[string]string) map[string]wire.TaskSupport {
	if listed == nil {
		return nil
	}
	out := make(map[string]wire.TaskSupport, len(listed))
	for name, s := range listed {
		out[name] = wire.TaskSupport(s)
	}
	return out
}

// ordered sets the schemas of tools to their encoding in the server's key
// order, when that was read along (relay/readalong).
func (c *Conn) ordered(tools []*mcp.Tool) {
	for _, t := range tools {
		if t == nil {
			continue
		}
		for _, schema := range []*any{&t.InputSchema, &t.OutputSchema} {
			if raw, err := c.ra.Schemas.Ordered(*schema); err == nil && raw != nil {
				*schema = raw
			}
		}
	}
}

// names returns the set of keys of items.
func names[T any](items []T, key func(T) string) map[string]bool {
	set := make(map[string]bool, len(items))
	for _, it := range items {
		set[key(it)] = true
	}
	return set
}

// listTemplates lists resource templates. A server with resources but
// without resources/templates/list has no templates.
func (c *Conn) listTemplates(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.ResourceTemplate, error) {
	templates, err := collect(ctx, c, "resource templates", templatesOf(cs), func(t *mcp.ResourceTemplate) string { return t.URITemplate })
	if rpcErr := serverError(err); rpcErr != nil && rpcErr.Code == jsonrpc.CodeMethodNotFound {
		return nil, nil
	}
	return templates, err
}

// page is one page of a list: its items and the next cursor.
type page[T any] func(ctx context.Context, cursor string) ([]*T, string, error)

func toolsOf(cs *mcp.ClientSession) page[mcp.Tool] {
	return func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	}
}

func promptsOf(cs *mcp.ClientSession) page[mcp.Prompt] {
	return func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	}
}

func resourcesOf(cs *mcp.ClientSession) page[mcp.Resource] {
	return func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	}
}

func templatesOf(cs *mcp.ClientSession) page[mcp.ResourceTemplate] {
	return func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	}
}

// collect follows the pages of one list. It stops at maxListPages pages,
// maxListItems items or maxListBytes of JSON, and at a cursor seen before;
// it drops null items and items whose key was seen before. What it leaves
// out is logged.
func collect[T any](ctx context.Context, c *Conn, list string, next page[T], key func(*T) string) ([]*T, error) {
	var (
		out     []*T
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
		items, more, err := next(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", list, err)
		}
		for _, it := range items {
			if it == nil || seen[key(it)] {
				dropped++
				continue
			}
			b, err := json.Marshal(it)
			if err != nil {
				dropped++
				continue
			}
			if len(out) == maxListItems || size+len(b) > maxListBytes {
				c.log.Warn("mcp list cut at the size limit", "list", list, "items", len(out), "bytes", size)
				break pages
			}
			seen[key(it)] = true
			size += len(b)
			out = append(out, it)
		}
		if more == "" {
			break
		}
		if cursors[more] {
			c.log.Warn("mcp list repeats a cursor; stopped", "list", list)
			break
		}
		cursors[more] = true
		cursor = more
	}
	if dropped > 0 {
		c.log.Warn("mcp list items dropped: null or duplicate keys", "list", list, "dropped", dropped)
	}
	return out, nil
}
