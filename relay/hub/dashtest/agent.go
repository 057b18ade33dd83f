package dashtest

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// CallAnswered calls tool as agent, answers the question the call raises
// on d with answer (accept), and returns the call's text once the question
// has left d too. It fails the test when no question comes, the call fails,
// or it does not end within Wait of the answer. d must show no question
// before.
func (d *Dashboard) CallAnswered(agent *mcp.ClientSession, tool string, answer map[string]any) string {
	d.t.Helper()
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	called := make(chan result, 1)
	go func() {
		res, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		called <- result{res, err}
	}()
	if len(d.asks) > 0 {
		d.t.Fatalf("the dashboard shows %d questions before the call", len(d.asks))
	}
	if err := d.WaitUntil("the agent's question", func() bool { return len(d.asks) > 0 }); err != nil {
		d.t.Fatalf("the dashboard's socket closed: %v", err)
	}
	d.Op(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: d.Asks()[0].ID, Action: wire.ActionAccept, Content: answer})
	var r result
	select {
	case r = <-called:
	case <-time.After(Wait):
		d.t.Fatalf("the agent's call did not end %v after the person answered", Wait)
	}
	if r.err != nil || r.res.IsError || len(r.res.Content) == 0 {
		d.t.Fatalf("the agent's call: %+v, %v", r.res, r.err)
	}
	text, _ := r.res.Content[0].(*mcp.TextContent)
	if text == nil {
		d.t.Fatalf("the agent's call returned %T, not text", r.res.Content[0])
	}
	if err := d.WaitUntil("the question gone", func() bool { return len(d.asks) == 0 }); err != nil {
		d.t.Fatalf("the dashboard's socket closed: %v", err)
	}
	return text.Text
}

// ToolNamed returns the name agent sees the tool ending in suffix by (the
// relay prefixes each server's tools).
func (d *Dashboard) ToolNamed(agent *mcp.ClientSession, suffix string) string {
	d.t.Helper()
	tools, err := agent.ListTools(context.Background(), nil)
	if err != nil {
		d.t.Fatalf("list tools: %v", err)
	}
	for _, tool := range tools.Tools {
		if strings.HasSuffix(tool.Name, suffix) {
			return tool.Name
		}
	}
	d.t.Fatalf("the agent sees %d tools, none ending in %s", len(tools.Tools), suffix)
	return ""
}
