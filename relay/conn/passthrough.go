package conn

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Pass-through operations, for the agent gateway: the server's own MCP
// objects, unconverted, so that what an agent sees of a tool (description,
// schemas, annotations, icons, title) is what the server sent. They run on
// the live session, like the dashboard's operations, with the same limits:
// lists stop at maxListPages pages and maxListItems items, and a result over
// [Config.MaxResultBytes] is an error. Errors are [*Error]; a JSON-RPC
// error of the server is kept in it as it is ([Error.RPC]).

// Capabilities returns the capabilities the server announced, or nil when
// there is no live session.
func (c *Conn) Capabilities() *mcp.ServerCapabilities {
	s, err := c.current()
	if err != nil {
		return nil
	}
	return s.cs.InitializeResult().Capabilities
}

// ListToolsMCP lists the server's tools.
func (c *Conn) ListToolsMCP(ctx context.Context) ([]*mcp.Tool, error) {
	return listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Tool, string, error) {
		r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// ListPromptsMCP lists the server's prompts.
func (c *Conn) ListPromptsMCP(ctx context.Context) ([]*mcp.Prompt, error) {
	return listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// ListResourcesMCP lists the server's resources.
func (c *Conn) ListResourcesMCP(ctx context.Context) ([]*mcp.Resource, error) {
	return listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.Resource, string, error) {
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplatesMCP lists the server's resource templates; a server
// without resources/templates/list has none.
func (c *Conn) ListResourceTemplatesMCP(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	out, err := listAll(ctx, c, func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
	if rpcErr := serverError(err); rpcErr != nil && rpcErr.Code == jsonrpc.CodeMethodNotFound {
		return nil, nil
	}
	return out, err
}

// CallToolMCP calls a tool with p. When progress is not nil the call asks
// for progress notifications and progress receives them, never after
// CallToolMCP returns (p's own progress token is replaced).
func (c *Conn) CallToolMCP(ctx context.Context, p *mcp.CallToolParams, progress func(wire.Progress)) (*mcp.CallToolResult, error) {
	q := *p
	q.Meta = withoutProgressToken(p.Meta)
	if progress != nil {
		token, stop := c.progress.add(progress)
		defer stop()
		q.SetProgressToken(token)
	}
	res, err := passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &q)
	})
	c.ra.Notices.Settle(ctx) // the call's log and progress messages reach the listeners first
	return res, err
}

// withoutProgressToken is meta without a caller's progress token. The
// connection's progress tokens are its own (progressTokens): a token an
// agent chose could name another call on the connection, whose progress
// (a person's, another agent's) would then carry this operation's.
func withoutProgressToken(meta mcp.Meta) mcp.Meta {
	if len(meta) == 0 {
		return nil
	}
	out := mcp.Meta{}
	for k, v := range meta {
		if k != "progressToken" {
			out[k] = v
		}
	}
	return out
}

// GetPromptMCP gets a prompt; p's progress token is dropped.
func (c *Conn) GetPromptMCP(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	q := *p
	q.Meta = withoutProgressToken(p.Meta)
	return passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.GetPromptResult, error) {
		return cs.GetPrompt(ctx, &q)
	})
}

// ReadResourceMCP reads a resource; p's progress token is dropped.
func (c *Conn) ReadResourceMCP(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	q := *p
	q.Meta = withoutProgressToken(p.Meta)
	return passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.ReadResourceResult, error) {
		return cs.ReadResource(ctx, &q)
	})
}

// CompleteMCP asks the server to complete an argument.
func (c *Conn) CompleteMCP(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CompleteResult, error) {
		return cs.Complete(ctx, p)
	})
}

// PingMCP pings the server.
func (c *Conn) PingMCP(ctx context.Context) error {
	_, err := passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*struct{}, error) {
		return &struct{}{}, cs.Ping(ctx, nil)
	})
	return err
}

// listAll follows the pages of one list, up to the list limits.
func listAll[T any](ctx context.Context, c *Conn, page func(context.Context, *mcp.ClientSession, string) ([]T, string, error)) ([]T, error) {
	var out []T
	cursors := map[string]bool{}
	cursor := ""
	for range maxListPages {
		items, next, err := passThroughPage(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) ([]T, string, error) {
			return page(ctx, cs, cursor)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
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

// passThroughPage runs one page of a list on the live session.
func passThroughPage[T any](ctx context.Context, c *Conn, op func(context.Context, *mcp.ClientSession) ([]T, string, error)) ([]T, string, error) {
	var next string
	items, err := passThrough(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*[]T, error) {
		items, n, err := op(ctx, cs)
		next = n
		return &items, err
	})
	if err != nil {
		return nil, "", err
	}
	return *items, next, nil
}

// passThrough runs op on the live session under a context that also ends
// with the session or after the call timeout, and checks the size of its
// result.
func passThrough[R any](ctx context.Context, c *Conn, op func(context.Context, *mcp.ClientSession) (*R, error)) (*R, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	res, err := do(ctx, s, func(ctx context.Context) (*R, error) { return op(ctx, s.cs) })
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, newError(Internal, fmt.Sprintf("encode result: %v", err))
	}
	if len(b) > s.maxResult {
		return nil, tooLarge(len(b), s.maxResult)
	}
	return res, nil
}
