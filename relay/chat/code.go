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
	searchRef  = wire.ToolRef{Tool: codemode.SearchTool.Name}
	executeRef = wire.ToolRef{Tool: codemode.ExecuteTool.Name}
)

// codeOffer turns o, the tools one by one, into code mode's two.
func (rn *run) codeOffer(o offer) offer {
	code := offer{refs: map[string]wire.ToolRef{searchRef.Tool: searchRef, executeRef.Tool: executeRef},
		policies: o.policies, readOnly: map[wire.ToolRef]bool{searchRef: true}}
	allRun, last := true, ""
	for _, p := range o.picked { // a server's tools are together
		if len(code.servers) == 0 || p.ref.Server != last {
			code.servers = append(code.servers, codemode.Server{Name: p.server.Name})
			last = p.ref.Server
		}
		s := &code.servers[len(code.servers)-1]
		s.Tools = append(s.Tools, codemode.Tool{Name: p.tool.Name, Description: p.tool.Description,
			InputSchema: p.tool.InputSchema, OutputSchema: p.tool.OutputSchema, Call: rn.codeCall(p.ref)})
		allRun = allRun && rn.policy(o, p.ref) == wire.PolicyRun
	}
	code.readOnly[executeRef] = allRun
	for _, d := range []codemode.ToolDef{codemode.SearchTool, codemode.ExecuteTool} {
		code.tools = append(code.tools, llm.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema})
	}
	return code
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
	var text string
	isError := false
	switch ref {
	case searchRef:
		if query, err := codemode.QueryOf(call.Arguments); err != nil {
			text, isError = err.Error(), true
		} else {
			text = codemode.Search(o.servers, query)
		}
	default:
		program, err := codemode.ProgramOf(call.Arguments)
		if err != nil {
			text, isError = err.Error(), true
			break
		}
		res := codemode.Execute(ctx, o.servers, program, codemode.Limits{})
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
