package mcpwire

import (
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// CompleteParams checks the arguments of a dashboard's completion (the
// argument's name, what is typed, the arguments already filled) and
// returns the request for the server; a malformed one fails with a
// [wire.CodeBadRequest] error.
func CompleteParams(a wire.CompleteArgs) (*mcp.CompleteParams, error) {
	ref, err := completeRef(a)
	if err != nil {
		return nil, err
	}
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: a.Argument, Value: a.Value}}
	if len(a.Context) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: a.Context}
	}
	return p, nil
}

// completeRef checks the arguments of a completion and returns its reference.
func completeRef(a wire.CompleteArgs) (*mcp.CompleteReference, error) {
	bad := func(msg string) error { return wire.NewError(wire.CodeBadRequest, msg) }
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
		return &mcp.CompleteReference{Type: string(wire.RefPrompt), Name: a.Ref.Name}, nil
	case wire.RefResource:
		if !validKey(a.Ref.URI, maxURIRunes) {
			return nil, bad("a resource completion needs the URI template")
		}
		return &mcp.CompleteReference{Type: string(wire.RefResource), URI: a.Ref.URI}, nil
	default:
		return nil, bad(fmt.Sprintf("a completion reference is %s or %s", wire.RefPrompt, wire.RefResource))
	}
}

// CompleteResult keeps at most wire.MaxCompletionValues values of a
// completion, each made safe to show on one line and cut to
// wire.MaxCompletionValue bytes' worth of runes; empty and repeated values
// are dropped.
func CompleteResult(d mcp.CompletionResultDetails) *wire.CompleteResult {
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
