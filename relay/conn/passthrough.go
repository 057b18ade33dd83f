package conn

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server's lists and capabilities as it sends them now, for the agent
// gateway: its own MCP objects, so that what an agent sees of a tool
// (description, schemas, annotations, icons, title) is what the server
// sent. They run on the live session like every operation, with the same
// limits: lists stop at maxListPages pages and maxListItems items.

// Capabilities returns the capabilities the server announced, or nil when
// there is no live session.
func (c *Conn) Capabilities() *mcp.ServerCapabilities {
	s, err := c.current()
	if err != nil {
		return nil
	}
	return s.cs.InitializeResult().Capabilities
}

// ListTools lists the server's tools, their schemas in the server's key
// order when that was read along ([Lists]).
func (c *Conn) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	tools, err := listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Tool, string, error) {
		r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
	c.ordered(tools)
	return tools, err
}

// ListPrompts lists the server's prompts.
func (c *Conn) ListPrompts(ctx context.Context) ([]*mcp.Prompt, error) {
	return listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// ListResources lists the server's resources.
func (c *Conn) ListResources(ctx context.Context) ([]*mcp.Resource, error) {
	return listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Resource, string, error) {
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates lists the server's resource templates; a server
// without resources/templates/list has none.
func (c *Conn) ListResourceTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	out, err := listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
	if e, ok := err.(*Error); ok && e.RPC != nil && e.RPC.Code == jsonrpc.CodeMethodNotFound {
		return nil, nil
	}
	return out, err
}

// listAll follows the pages of one list, up to the list limits.
func listAll[T any](ctx context.Context, c *Conn, page func(context.Context, *mcp.ClientSession, string) ([]T, string, error)) ([]T, error) {
	var out []T
	cursors := map[string]bool{}
	cursor := ""
	for range maxListPages {
		var next string
		items, err := onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*[]T, error) {
			items, n, err := page(ctx, cs, cursor)
			next = n
			return &items, err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, *items...)
		if len(out) >= maxListItems {
			return out[:maxListItems], nil
		}
		if next == "" || cursors[next] {
			break
		}
		cursors[next] = true
		cursor = next
	}
	return out, nil
}
