package conn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// CallTool calls the tool name with args, a JSON object (empty or null means
// no arguments). When progress is not nil the call asks for progress
// notifications and progress receives them, never after CallTool returns. A
// result with IsError set is a result, not an error. Errors are
// [*Error].
func (c *Conn) CallTool(ctx context.Context, name string, args json.RawMessage, progress func(wire.Progress)) (*wire.CallToolResult, error) {
	arguments, err := objectArgs(args)
	if err != nil {
		return nil, err
	}
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if !c.knows(func() map[string]bool { return s.tools }, name) {
		return nil, newError(NotFound, fmt.Sprintf("the server has no tool %q", name))
	}
	if c.ra.Tasks.Support(name) == wire.TaskSupportRequired {
		return nil, newError(BadRequest, "this tool runs only as a task")
	}
	params := &mcp.CallToolParams{Name: name, Arguments: arguments}
	if progress != nil {
		token, stop := c.progress.add(progress)
		defer stop()
		params.SetProgressToken(token)
	}
	res, err := do(ctx, s, func(ctx context.Context) (*mcp.CallToolResult, error) { return s.cs.CallTool(ctx, params) })
	if err != nil {
		return nil, err
	}
	out, err := convertCallToolResult(res)
	if err != nil {
		return nil, unusableAnswer(err)
	}
	c.checkOutput(s, name, out)
	return sized(out, s.maxResult)
}

// checkOutput sets out's OutputCheck when the tool name of s declared an
// outputSchema. An isError result is the tool's error, not its output: it
// is not checked.
func (c *Conn) checkOutput(s *session, name string, out *wire.CallToolResult) {
	c.mu.Lock()
	schema := s.outputs[name]
	c.mu.Unlock()
	if schema != nil && !out.IsError {
		out.OutputCheck = checkOutput(schema, out.StructuredContent)
	}
}

// GetPrompt gets the prompt name with args. Errors are [*Error].
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (*wire.GetPromptResult, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if !c.knows(func() map[string]bool { return s.prompts }, name) {
		return nil, newError(NotFound, fmt.Sprintf("the server has no prompt %q", name))
	}
	params := &mcp.GetPromptParams{Name: name, Arguments: args}
	res, err := do(ctx, s, func(ctx context.Context) (*mcp.GetPromptResult, error) { return s.cs.GetPrompt(ctx, params) })
	if err != nil {
		return nil, err
	}
	out, err := convertGetPromptResult(res)
	if err != nil {
		return nil, unusableAnswer(err)
	}
	return sized(out, s.maxResult)
}

// ReadResource reads the resource at uri, listed or matching a template.
// Errors are [*Error].
func (c *Conn) ReadResource(ctx context.Context, uri string) (*wire.ReadResourceResult, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	params := &mcp.ReadResourceParams{URI: uri}
	res, err := do(ctx, s, func(ctx context.Context) (*mcp.ReadResourceResult, error) { return s.cs.ReadResource(ctx, params) })
	if err != nil {
		return nil, err
	}
	return sized(convertReadResourceResult(res), s.maxResult)
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

// do runs op on s under a context that ends with the caller's, with the
// session or after the call timeout, and maps its failure to an [*Error].
func do[R any](ctx context.Context, s *session, op func(context.Context) (R, error)) (R, error) {
	opCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(s.callTimeout, func() { cancel(errCallTimeout) })
	defer timer.Stop()
	stop := context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
	defer stop()
	res, err := op(opCtx)
	if err != nil {
		var zero R
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

// objectArgs checks that args is a JSON object; empty and null mean {}.
func objectArgs(args json.RawMessage) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}"), nil
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, newError(BadRequest, "tool arguments must be a JSON object")
	}
	return args, nil
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
