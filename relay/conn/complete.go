package conn

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Complete asks the server for values of a prompt argument or a resource
// template variable, given what is typed and the arguments already filled.
// It fails with [BadRequest] when the server did not declare
// completions. The values are sanitized and at most
// [wire.MaxCompletionValues]. Errors are [*Error].
func (c *Conn) Complete(ctx context.Context, a wire.CompleteArgs) (*wire.CompleteResult, error) {
	ref, err := completeRef(a)
	if err != nil {
		return nil, err
	}
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	if declared(s).Completions == nil {
		return nil, newError(BadRequest, "the server does not offer completions")
	}
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: a.Argument, Value: a.Value}}
	if len(a.Context) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: a.Context}
	}
	res, err := do(ctx, s, func(ctx context.Context) (*mcp.CompleteResult, error) { return s.cs.Complete(ctx, params) })
	if err != nil {
		return nil, err
	}
	return convertCompletion(res.Completion), nil
}

// completeRef checks the arguments of a completion and returns its reference.
func completeRef(a wire.CompleteArgs) (*mcp.CompleteReference, error) {
	bad := func(msg string) error { return newError(BadRequest, msg) }
	switch {
	case !validKey(a.Argument, maxKeyRunes):
		return nil, bad("a completion needs the name of the argument")
	case len(a.Value) > wire.MaxCompletionValue || !utf8.ValidString(a.Value):
		return nil, bad(fmt.Sprintf("the value to complete must be valid UTF-8 of at most %d bytes", wire.MaxCompletionValue))
	case len(a.Context) > wire.MaxCompletionContext:
		return nil, bad(fmt.Sprintf("at most %d arguments may be sent as context", wire.MaxCompletionContext))
	}
	for k, v := range a.Context {
		if !validKey(k, maxKeyRunes) || len(v) > wire.MaxCompletionValue || !utf8.ValidString(v) {
			return nil, bad("a context argument is malformed or too long")
		}
	}
	switch a.Ref.Type {
	case wire.RefPrompt:
		if !validKey(a.Ref.Name, maxKeyRunes) {
			return nil, bad("a prompt completion needs the prompt's name")
		}
		return &mcp.CompleteReference{Type: wire.RefPrompt, Name: a.Ref.Name}, nil
	case wire.RefResource:
		if !validKey(a.Ref.URI, maxURIRunes) {
			return nil, bad("a resource completion needs the URI template")
		}
		return &mcp.CompleteReference{Type: wire.RefResource, URI: a.Ref.URI}, nil
	default:
		return nil, bad(fmt.Sprintf("a completion reference is %s or %s", wire.RefPrompt, wire.RefResource))
	}
}

// convertCompletion keeps at most wire.MaxCompletionValues values, each made
// safe to show on one line and cut to wire.MaxCompletionValue bytes' worth
// of runes; empty and repeated values are dropped.
func convertCompletion(d mcp.CompletionResultDetails) *wire.CompleteResult {
	out := &wire.CompleteResult{Values: []string{}, Total: max(d.Total, 0), HasMore: d.HasMore}
	seen := map[string]bool{}
	for _, v := range d.Values {
		if len(out.Values) == wire.MaxCompletionValues {
			out.HasMore = true
			break
		}
		v = line(v, wire.MaxCompletionValue/4)
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		out.Values = append(out.Values, v)
	}
	return out
}
