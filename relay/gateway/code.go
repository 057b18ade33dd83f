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

// Names and bounds of the code-mode tools.
const (
	toolSearch  = "search"
	toolExecute = "execute"
	// maxProgramBytes caps the program an agent sends.
	maxProgramBytes = 64 << 10
	// maxProgramsPerKey caps the programs of one key running at once, over
	// all its endpoints: each may keep a core busy until its time limit.
	maxProgramsPerKey = 2
)

// CodePath is the aggregate endpoint in code mode, whatever the key's mode.
const CodePath = "/mcp/code"

var (
	searchTool = &mcp.Tool{
		Name: toolSearch,
		Description: "Find the tools you can call from an execute program. Returns their TypeScript declarations " +
			"(arguments and results, with descriptions), grouped by the global object of their server. " +
			"Query with a few words (all must match a server, a tool name or a description); " +
			"an empty query lists the servers and their tool names.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to match; empty lists everything briefly."}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}
	executeTool = &mcp.Tool{
		Name: toolExecute,
		Description: "Run a JavaScript program (ES2020, async/await) that calls the tools found with search: " +
			"each server is a global object whose methods are its tools, e.g. `const r = await files.list_directory({path: \"/\"})`. " +
			"A tool returns its structured result, or its text; a failed tool throws an Error you can catch. " +
			"`return` gives the program's result (as JSON); console.log lines are returned too. " +
			"No network, files or timers; limits on time, tool calls and output apply.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"The program: the body of an async function."}},"required":["code"]}`),
	}
)

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
	v.srv.AddTool(searchTool, v.search)
	v.srv.AddTool(executeTool, v.execute)
}

func (v *view) search(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Query string `json:"query"`
	}
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return textResult(`search takes {"query": string}`, true), nil
		}
	}
	return textResult(codemode.Search(v.codeServers(nil, nil), args.Query), false), nil
}

func (v *view) execute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Code == "" {
		return textResult(`execute takes {"code": string}, a JavaScript program`, true), nil
	}
	if len(args.Code) > maxProgramBytes {
		return textResult("the program is over 64 KiB", true), nil
	}
	grant := *v.grant.Load()
	if !v.g.startProgram(grant.KeyID) {
		return textResult(fmt.Sprintf("this key runs %d programs already: wait for one to end", maxProgramsPerKey), true), nil
	}
	defer v.g.endProgram(grant.KeyID)
	w := newWaiter(ctx, req.Session, req.Params.GetProgressToken(), v.g.cfg.WaitingEvery)
	defer w.stop()
	end := v.user.StartProgram(&session.Agent{Name: grant.Agent, KeyID: grant.KeyID}, args.Code)
	res := codemode.Execute(ctx, v.codeServers(w, req.Session), args.Code, v.g.cfg.CodeLimits)
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
