package chat

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/codemode"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Code mode. A conversation in code mode offers its model two tools in
// place of the ones it would offer one by one: search, which declares them
// as TypeScript, and execute, which runs a program that calls them
// (relay/codemode). search runs without asking; a program runs without
// asking only when every tool it can reach would, else its card asks once,
// showing the program. Its calls run as the conversation's, marked as made
// by code.

// The code-mode tools, as the conversation's tool refs: no server.
var (
	searchRef  = wire.ToolRef{Tool: "search"}
	executeRef = wire.ToolRef{Tool: "execute"}
)

// Descriptions of the code-mode tools for a model.
const (
	searchDescription = "Find the tools you can call from an execute program. Returns their TypeScript declarations " +
		"(arguments and results), grouped by their server's global object. Query with a few words; an empty query lists every tool's name."
	executeDescription = "Run a JavaScript program (ES2020, async/await; the body of an async function) that calls the tools found with search: " +
		"each server is a global whose methods are its tools, e.g. `await files.list_directory({path: \"/\"})`. " +
		"A tool returns its structured result or its text; a failed one throws. `return` gives the result; console.log lines come back too."
)

// codeOffer turns o, the tools one by one, into code mode's two.
func (rn *run) codeOffer(o offer) offer {
	code := offer{refs: map[string]wire.ToolRef{searchRef.Tool: searchRef, executeRef.Tool: executeRef},
		policies: o.policies, readOnly: map[wire.ToolRef]bool{searchRef: true}}
	allRun := true
	byServer := map[string]*codemode.Server{}
	var order []string
	tools := map[wire.ToolRef]wire.Tool{}
	for _, srv := range rn.r.session(rn.user).Servers() {
		for _, t := range srv.Tools {
			tools[wire.ToolRef{Server: srv.ID, Tool: t.Name}] = t
		}
		byServer[srv.ID] = &codemode.Server{Name: srv.Name}
	}
	for _, name := range toolOrder(o) {
		ref := o.refs[name]
		t, listed := tools[ref]
		s := byServer[ref.Server]
		if !listed || s == nil { // the server went since o was made
			continue
		}
		if len(s.Tools) == 0 {
			order = append(order, ref.Server)
		}
		s.Tools = append(s.Tools, codemode.Tool{Name: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Call: rn.codeCall(ref)})
		allRun = allRun && rn.policy(o, ref) == wire.PolicyRun
	}
	for _, id := range order {
		code.servers = append(code.servers, *byServer[id])
	}
	code.readOnly[executeRef] = allRun
	code.tools = []llm.Tool{
		{Name: searchRef.Tool, Description: searchDescription, InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)},
		{Name: executeRef.Tool, Description: executeDescription, InputSchema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`)},
	}
	return code
}

// toolOrder is the names o offers, in the order it lists them.
func toolOrder(o offer) []string {
	out := make([]string, len(o.tools))
	for i, t := range o.tools {
		out[i] = t.Name
	}
	return out
}

// codeCall is how a program calls tool ref: as the conversation's call,
// made by code.
func (rn *run) codeCall(ref wire.ToolRef) func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
		o, ok := rn.r.session(rn.user).Server(ref.Server)
		if !ok {
			return nil, errors.New("the server was removed")
		}
		caller := session.Caller{Agent: &session.Agent{Name: "Chat: " + rn.chat.Title, Label: ref.Tool, Chat: rn.chat.ID,
			ByCode: true, Allowed: func() bool { return true }}}
		res, err := o.CallTool(ctx, caller, &mcp.CallToolParams{Name: ref.Tool, Arguments: args})
		if err != nil {
			return nil, errors.New(callError(err))
		}
		return res, nil
	}
}

// runCode runs an approved search or execute and returns its result for
// the model.
func (rn *run) runCode(ctx context.Context, tr *toolRun, call llm.ToolCall, ref wire.ToolRef, o offer, images bool) llm.Part {
	var args struct {
		Query string `json:"query"`
		Code  string `json:"code"`
	}
	json.Unmarshal(call.Arguments, &args) // checked an object; missing fields are empty
	var text string
	isError := false
	switch ref {
	case searchRef:
		text = codemode.Search(o.servers, args.Query)
	default:
		if args.Code == "" {
			text, isError = `execute takes {"code": string}, a JavaScript program`, true
			break
		}
		res := codemode.Execute(ctx, o.servers, args.Code, codemode.Limits{})
		if ctx.Err() != nil {
			return rn.toolEnded(ctx, tr, call.ID)
		}
		text, isError = res.Text(), res.Error != ""
	}
	shown := &wire.CallToolResult{IsError: isError, Content: []wire.Content{{Type: wire.ContentText, Text: text}}}
	part, cut := forModel(call.ID, shown, images)
	rn.editTool(tr.part, func(c *wire.ChatToolCall) {
		c.State, c.Result, c.Cut, c.Progress = wire.ToolDone, forCard(shown), cut, nil
	})
	return part
}
