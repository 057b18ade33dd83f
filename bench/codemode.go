package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The code-mode task: one list call and a detail call for each of its
// records, as an agent would make them one by one (a round trip through
// its model each), or as one program.
const (
	toolRecords   = "records_list"
	toolRecord    = "record_detail"
	taskRecords   = 10
	codeFillTools = 100 // filler tools beside tick and the task's
)

// addTaskTools adds the task's tools to a fixture server.
func addTaskTools(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{Name: toolRecords, Description: "Lists the ids of the records, one per line.", InputSchema: emptyObject},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ids := make([]string, taskRecords)
			for i := range ids {
				ids[i] = "r" + strconv.Itoa(i)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(ids, "\n")}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: toolRecord, Description: "One record's owner and size.",
		InputSchema:  map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []string{"id"}},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"owner": map[string]any{"type": "string"}, "size": map[string]any{"type": "integer"}}}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ ID string }
			json.Unmarshal(req.Params.Arguments, &a)
			n, _ := strconv.Atoi(strings.TrimPrefix(a.ID, "r"))
			out := map[string]any{"owner": "owner-" + a.ID, "size": 1000 + 37*n}
			b, _ := json.Marshal(out)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: out}, nil
		})
}

// taskProgram is the task as one code-mode program.
const taskProgram = `const ids = (await fixture.records_list()).split("\n");
const details = await Promise.all(ids.map(id => fixture.record_detail({id})));
return details.map((d, i) => ({id: ids[i], ...d})).sort((a, b) => b.size - a.size);`

// codeModeFigure compares an agent given every tool one by one (/mcp) with
// one in code mode (/mcp/code), both reaching the demo server and the
// fixture: what tools/list costs its context, and the task's round trips
// and time through the relay (no model in either).
func codeModeFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, codeFillTools)
	if err != nil {
		return nil, err
	}
	defer b.close()
	_, stopDemo, err := b.addDemo(ctx, "demo")
	if err != nil {
		return nil, err
	}
	defer stopDemo()
	key, err := b.relay.agentKey()
	if err != nil {
		return nil, err
	}
	tools, err := b.agent(ctx, key, "/mcp")
	if err != nil {
		return nil, err
	}
	defer tools.Close()
	code, err := b.agent(ctx, key, "/mcp/code")
	if err != nil {
		return nil, err
	}
	defer code.Close()
	oneByOne, n, err := listBytes(ctx, tools)
	if err != nil {
		return nil, err
	}
	inCode, _, err := listBytes(ctx, code)
	if err != nil {
		return nil, err
	}

	byTool := func() (time.Duration, error) {
		start := time.Now()
		res, err := tools.CallTool(ctx, &mcp.CallToolParams{Name: b.serverID + "__" + toolRecords, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			return 0, fmt.Errorf("%s: %v %v", toolRecords, err, res)
		}
		for _, id := range strings.Split(res.Content[0].(*mcp.TextContent).Text, "\n") {
			if r, err := tools.CallTool(ctx, &mcp.CallToolParams{Name: b.serverID + "__" + toolRecord, Arguments: map[string]any{"id": id}}); err != nil || r.IsError {
				return 0, fmt.Errorf("%s: %v %v", toolRecord, err, r)
			}
		}
		return time.Since(start), nil
	}
	byProgram := func() (time.Duration, error) {
		start := time.Now()
		res, err := code.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": taskProgram}})
		if err != nil || res.IsError {
			return 0, fmt.Errorf("execute: %v %v", err, res)
		}
		return time.Since(start), nil
	}
	rounds := max(cfg.calls/20, 5)
	var toolTimes, codeTimes []time.Duration
	for range rounds { // alternating, so that both see the same machine
		d, err := byTool()
		if err != nil {
			return nil, err
		}
		toolTimes = append(toolTimes, d)
		if d, err = byProgram(); err != nil {
			return nil, err
		}
		codeTimes = append(codeTimes, d)
	}
	return []row{
		{figure: fmt.Sprintf("code mode: tools/list of %d tools (the demo's and the fixture's)", n),
			switchboard: fmt.Sprintf("%s (~%d tokens), code mode", kb(float64(inCode)), inCode/4),
			reference:   fmt.Sprintf("%s (~%d tokens), one by one", kb(float64(oneByOne)), oneByOne/4),
			ratio:       fmt.Sprintf("%.3fx", float64(inCode)/float64(oneByOne))},
		{figure: fmt.Sprintf("code mode: a list and %d detail calls, round trips through the agent", taskRecords),
			switchboard: "1, code mode", reference: strconv.Itoa(taskRecords+1) + ", one by one",
			ratio: fmt.Sprintf("%.2fx", 1/float64(taskRecords+1))},
		ratioRow(fmt.Sprintf("code mode: a list and %d detail calls, relay time (no model), p50", taskRecords),
			median(codeTimes), median(toolTimes), "one by one", 0),
	}, nil
}

// listBytes is the bytes of the JSON of every tool cs lists (what an agent
// puts in its model's context), and how many there are.
func listBytes(ctx context.Context, cs *mcp.ClientSession) (int, int, error) {
	var all []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return 0, 0, err
		}
		all = append(all, t)
	}
	b, err := json.Marshal(all)
	return len(b), len(all), err
}
