package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Operations run on the live session with the go-sdk's types, for every
// caller alike (a person's dashboard, an agent): the same checks, the same
// limits ([Config.CallTimeout], [Config.MaxResultBytes] on the result's
// JSON), and errors that are [*Error]s. A caller's progress token in a
// request's _meta is replaced by the connection's own: a token a caller
// chose could name another call on the connection, whose progress (a
// person's, another agent's) would then carry this operation's. The rest
// of _meta passes as it is.

// CallTool calls the tool p names with p's arguments, a JSON object (none
// and null mean {}). When progress is not nil the call asks for progress
// notifications and progress receives them, never after CallTool returns;
// the server's log messages sent during the call reach [Conn.OnLog]'s
// listeners before it returns too. A tool the server did not list is
// [NotFound], one that runs only as a task ([Conn.CallToolTask])
// [BadRequest]. A result with IsError set is a result, not an error.
func (c *Conn) CallTool(ctx context.Context, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	arguments, err := objectArgs(p.Arguments)
	if err != nil {
		return nil, err
	}
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if err := c.knownTool(s, p.Name); err != nil {
		return nil, err
	}
	if c.TaskRequired(p.Name) {
		return nil, newError(BadRequest, "this tool runs only as a task")
	}
	q := *p
	q.Meta, q.Arguments = withoutProgressToken(p.Meta), arguments
	if progress != nil {
		token, stop := c.progress.add(progress)
		defer stop()
		q.SetProgressToken(token)
	}
	res, err := do(ctx, s, func(ctx context.Context) (*mcp.CallToolResult, error) { return s.cs.CallTool(ctx, &q) })
	c.ra.Notices.Settle(ctx) // the call's log and progress messages reach the listeners first
	if err != nil {
		return nil, err
	}
	return sized(res, s.maxResult)
}

// GetPrompt gets the prompt p names with p's arguments. A prompt the server
// did not list is [NotFound].
func (c *Conn) GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if !c.knows(func() map[string]bool { return s.prompts }, p.Name) {
		return nil, newError(NotFound, fmt.Sprintf("the server has no prompt %q", p.Name))
	}
	q := *p
	q.Meta = withoutProgressToken(p.Meta)
	return run(ctx, s, func(ctx context.Context) (*mcp.GetPromptResult, error) { return s.cs.GetPrompt(ctx, &q) })
}

// ReadResource reads the resource at p's URI, listed or matching a
// template.
func (c *Conn) ReadResource(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	q := *p
	q.Meta = withoutProgressToken(p.Meta)
	return onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.ReadResourceResult, error) {
		return cs.ReadResource(ctx, &q)
	})
}

// Complete asks the server for values of a prompt argument or a resource
// template variable.
func (c *Conn) Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	q := *p
	q.Meta = withoutProgressToken(p.Meta)
	return onLive(ctx, c, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CompleteResult, error) {
		return cs.Complete(ctx, &q)
	})
}

// Ping pings the server and returns the round-trip time.
func (c *Conn) Ping(ctx context.Context) (time.Duration, error) {
	s, err := c.current()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	_, err = do(ctx, s, func(ctx context.Context) (struct{}, error) { return struct{}{}, s.cs.Ping(ctx, nil) })
	if err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// knownTool fails with [NotFound] when the server of s did not list tool
// name.
func (c *Conn) knownTool(s *session, name string) error {
	if !c.knows(func() map[string]bool { return s.tools }, name) {
		return newError(NotFound, fmt.Sprintf("the server has no tool %q", name))
	}
	return nil
}

// knows reports whether name is in the set that list returns, or whether
// nothing was listed yet; list is read under c.mu, which rediscovery holds
// while it replaces the sets.
func (c *Conn) knows(list func() map[string]bool, name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := list()
	return set == nil || set[name]
}

// withoutProgressToken is meta without a caller's progress token.
func withoutProgressToken(meta mcp.Meta) mcp.Meta {
	if len(meta) == 0 {
		return nil
	}
	out := mcp.Meta{}
	for k, v := range meta {
		if k != progressTokenKey {
			out[k] = v
		}
	}
	return out
}

// onLive runs op on the live session's client session (see [do]) and
// checks the size of its result.
func onLive[R any](ctx context.Context, c *Conn, op func(context.Context, *mcp.ClientSession) (*R, error)) (*R, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	return run(ctx, s, func(ctx context.Context) (*R, error) { return op(ctx, s.cs) })
}

// run runs op on s (see [do]) and checks the size of its result.
func run[R any](ctx context.Context, s *session, op func(context.Context) (*R, error)) (*R, error) {
	res, err := do(ctx, s, op)
	if err != nil {
		return nil, err
	}
	return sized(res, s.maxResult)
}

// do runs op on s under a context that ends with the caller's, with the
// session or after the call timeout, and maps its failure to an [*Error].
func do[R any](ctx context.Context, s *session, op func(context.Context) (R, error)) (R, error) {
	noted, note := withOversizeNote(ctx)
	opCtx, cancel := context.WithCancelCause(noted)
	defer cancel(nil)
	timer := time.AfterFunc(s.callTimeout, func() { cancel(errCallTimeout) })
	defer timer.Stop()
	stop := context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
	defer stop()
	res, err := op(opCtx)
	if err != nil {
		var zero R
		if note.refused.Load() {
			return zero, refusedAsTooLarge(s.maxResult)
		}
		return zero, s.opError(ctx, opCtx, err)
	}
	return res, nil
}

// opError maps the failure of an operation on s; a connection that broke
// makes the session probe the server at once.
func (s *session) opError(caller, op context.Context, err error) *Error {
	e := opError(caller, op, err, s.callTimeout)
	e.Message = s.scrub(e.Message)
	if e.Code == ConnectionLost {
		s.suspect()
	}
	return e
}

// objectArgs checks that args, a tool call's arguments, are a JSON object
// and returns them encoded; none, empty and null mean {}.
func objectArgs(args any) (json.RawMessage, error) {
	var raw []byte
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return nil, newError(BadRequest, "tool arguments must be a JSON object")
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return nil, newError(BadRequest, "tool arguments must be a JSON object")
	}
	return raw, nil
}

// sized returns v, or a too-large error when its JSON is over limit bytes.
func sized[T any](v *T, limit int) (*T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, newError(Internal, fmt.Sprintf("encode result: %v", err))
	}
	if len(b) > limit {
		return nil, tooLarge(len(b), limit)
	}
	return v, nil
}
