package demo

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// What greet asks.
const (
	greetInput    = "name" // the key of its input request
	greetQuestion = "What is your name?"
	maxNameRunes  = 100
)

// greetSchema is the form greet shows.
var greetSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name": map[string]any{"type": "string", "title": "Your name", "minLength": 1, "maxLength": maxNameRunes},
	},
	"required": []any{"name"},
}

// greet asks the person's name with a form and greets them. The server is
// stateless, so it cannot send elicitation/create (ServerSession.Elicit)
// on a session: it asks through an input request of the 2026-07-28
// protocol, which the client answers and sends back with the call again.
// A client that declares no elicitation gets a greeting without a name.
func greet(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r, ok := req.Params.InputResponses[greetInput].(*mcp.ElicitResult); ok {
		return textResult(greeting(r)), nil
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
		return textResult("greet asks your name with a form, and this client cannot show one: elicitation is not supported here. Hello, whoever you are!"), nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{greetInput: &mcp.ElicitParams{Message: greetQuestion, RequestedSchema: greetSchema}},
		RequestState:  GreetTool,
	}, nil
}

// greeting answers the person's answer to the form.
func greeting(r *mcp.ElicitResult) string {
	switch r.Action {
	case "decline":
		return "You declined to give your name. Hello anyway!"
	case "accept":
		name, _ := r.Content["name"].(string)
		if name = strings.TrimSpace(wire.Sanitize(name, maxNameRunes)); name != "" {
			return "Hello, " + name + "!"
		}
		return "No name came back. Hello anyway!"
	}
	return "You closed the form without answering. Hello anyway!"
}
