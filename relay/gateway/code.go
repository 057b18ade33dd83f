package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/codemode"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Code mode. Instead of each tool, or beside them, a view offers two:
// search, which declares the tools of the key's scope as TypeScript, and
// execute, which runs a short JavaScript program that calls them
// (relay/codemode). Each call a program makes is an ordinary agent call of
// the key (the grant, the activity, the questions to the person), marked as
// made by code; the execute itself is logged with its program.

// maxProgramsPerKey caps the programs of one key running at once, over all
// its endpoints: each may keep a core busy until its time limit.
const maxProgramsPerKey = 2

// CodePath is the aggregate endpoint in code mode, whatever the key's mode.
const CodePath = "/mcp/code"

// codeTool is one of code mode's tools as the go-sdk declares it.
func codeTool(d codemode.ToolDef, readOnly bool) *mcp.Tool {
	t := &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema}
	if readOnly {
		t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	return t
}

// showsTools reports whether the view lists each tool of its servers.
func (v *view) showsTools() bool {
	return !v.code && (v.only != "" || v.grant.Load().ToolMode != wire.ToolModeCode)
}

// showsCode reports whether the view offers search and execute.
func (v *view) showsCode() bool {
	m := v.grant.Load().ToolMode
	return v.code || v.only == "" && (m == wire.ToolModeCode || m == wire.ToolModeBoth)
}

// addCodeTools adds search and execute to the view's server.
func (v *view) addCodeTools() {
	v.srv.AddTool(codeTool(codemode.SearchTool, true), v.search)
	v.srv.AddTool(codeTool(codemode.ExecuteTool, false), v.execute)
}

func (v *view) search(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, err := codemode.QueryOf(req.Params.Arguments)
	if err != nil {
		return textResult(err.Error(), true), nil
	}
	return textResult(codemode.Search(v.codeServers(nil, nil), query), false), nil
}

func (v *view) execute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	program, err := codemode.ProgramOf(req.Params.Arguments)
	if err != nil {
		return textResult(err.Error(), true), nil
	}
	grant := *v.grant.Load()
	if !v.g.startProgram(grant.KeyID) {
		return textResult(fmt.Sprintf("this key runs %d programs already: wait for one to end", maxProgramsPerKey), true), nil
	}
	defer v.g.endProgram(grant.KeyID)
	w := newWaiter(ctx, req.Session, req.Params.GetProgressToken(), v.g.cfg.WaitingEvery)
	defer w.stop()
	end := v.user.StartProgram(&session.Agent{Name: grant.Agent, KeyID: grant.KeyID}, program)
	res := codemode.Execute(ctx, v.codeServers(w, req.Session), program, v.g.cfg.CodeLimits)
	outcome := wire.OutcomeOK
	switch {
	case ctx.Err() != nil:
		outcome = wire.OutcomeCancelled
	case res.Error != "":
		outcome = wire.OutcomeToolError
	}
	end(outcome, w.askedPerson())
	return textResult(res.Text(), res.Error != ""), nil
}

// codeServers are the ready servers of the key's scope and their tools, as
// a program sees them now; w and ss (nil for search) carry its calls'
// questions and cancellation.
func (v *view) codeServers(w *waiter, ss *mcp.ServerSession) []codemode.Server {
	grant := *v.grant.Load()
	var out []codemode.Server
	for _, st := range v.user.Servers() {
		if st.State != wire.StateReady || !grant.AllowsServer(st.ID) || v.only != "" && st.ID != v.only {
			continue
		}
		o, ok := v.user.Server(st.ID)
		if !ok {
			continue
		}
		lists, caps := o.Lists()
		if lists == nil || caps == nil || caps.Tools == nil {
			continue
		}
		names := exposedNames(st.ID, itemNames(lists.Tools, func(t *mcp.Tool) string { return t.Name }))
		srv := codemode.Server{Name: st.Name}
		for _, t := range lists.Tools {
			agg := names[t.Name]
			if !(wire.Tool{UI: mcpwire.ToolUI(t.Meta)}).ForModel() || !grant.AllowsTool(st.ID, t.Name, agg) {
				continue
			}
			srv.Tools = append(srv.Tools, codemode.Tool{
				Name: t.Name, Description: t.Description,
				InputSchema: rawSchema(t.InputSchema), OutputSchema: rawSchema(t.OutputSchema),
				Call: v.codeCall(st.ID, t.Name, agg, w, ss),
			})
		}
		out = append(out, srv)
	}
	return out
}

// codeCall is how a program calls server id's tool name (agg on the
// aggregate endpoint): the key's call, made by code.
func (v *view) codeCall(id, name, agg string, w *waiter, ss *mcp.ServerSession) func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
		o, ok := v.user.Server(id)
		if !ok {
			return nil, errors.New("the server is gone")
		}
		c := v.caller(name, w, func(g agentkeys.Grant) bool { return g.AllowsTool(id, name, agg) })
		c.Agent.ByCode, c.Progress = true, nil // progress of several calls would not increase
		end := v.begin(id, ctx, ss)
		defer end()
		res, err := o.CallTool(ctx, c, &mcp.CallToolParams{Name: name, Arguments: args})
		switch {
		case errors.Is(err, session.ErrUnanswered):
			return nil, err
		case err != nil:
			return nil, errors.New(asWire(err).Message)
		}
		return res, nil
	}
}

// rawSchema is a tool's schema as JSON, nil when it has none.
func rawSchema(s any) json.RawMessage {
	if s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	return b
}

// textResult is a tool result of one text.
func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// startProgram counts a program of key in, unless it runs
// maxProgramsPerKey already.
func (g *Gateway) startProgram(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.programs[key] >= maxProgramsPerKey {
		return false
	}
	g.programs[key]++
	return true
}

// endProgram counts a program of key out.
func (g *Gateway) endProgram(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.programs[key]--; g.programs[key] <= 0 {
		delete(g.programs, key)
	}
}
