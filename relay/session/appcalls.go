package session

import (
	"encoding/json"
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// appMayCall checks a call of tool made by the view at uri (a person's
// App): the view must be one of the server's, named by one of its tools,
// and the tool one that its server lets its views call.
func (o *Server) appMayCall(uri, tool string) error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	tools := o.state.Tools
	if !slices.ContainsFunc(tools, func(t wire.Tool) bool { return t.UI != nil && t.UI.ResourceURI == uri }) {
		return wire.NewError(wire.CodeBadRequest, "a view may call tools only of its own server, which names it for one of its tools")
	}
	i := slices.IndexFunc(tools, func(t wire.Tool) bool { return t.Name == tool })
	switch {
	case i < 0:
		return wire.NewError(wire.CodeNotFound, "no such tool")
	case !tools[i].ForApp():
		return wire.NewError(wire.CodeBadRequest, "this tool is not for the server's views to call")
	}
	return nil
}

// callArguments are a tool call's arguments as the state keeps them: nil
// when they are none, not JSON, or over wire.MaxCallArguments.
func callArguments(args any) json.RawMessage {
	b, ok := args.(json.RawMessage)
	if !ok && args != nil {
		b, _ = json.Marshal(args)
	}
	if len(b) == 0 || len(b) > wire.MaxCallArguments || string(b) == "null" || !json.Valid(b) {
		return nil
	}
	return b
}
