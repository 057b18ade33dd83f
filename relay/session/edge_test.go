package session

import (
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A list is converted again only when the connection reported a new one.
func TestEdgeConvertsOnlyTheListsThatChanged(t *testing.T) {
	m := NewManager(Config{Logger: slog.New(slog.DiscardHandler)})
	e := m.newEdge(m.logger)
	defer e.stop()
	lists := &conn.Lists{Tools: tools(3, "x"), Prompts: []*mcp.Prompt{{Name: "p"}}}
	first := e.server(conn.State{State: wire.StateReady, Lists: lists})
	again := e.server(conn.State{State: wire.StateFailed, Error: "gone", Lists: lists})
	if len(first.Tools) != 3 || &again.Tools[0] != &first.Tools[0] || &again.Prompts[0] != &first.Prompts[0] {
		t.Fatalf("the same lists were converted again: %+v", again)
	}
	next := *lists
	next.Prompts = []*mcp.Prompt{{Name: "q"}}
	changed := e.server(conn.State{State: wire.StateReady, Lists: &next})
	if &changed.Tools[0] != &first.Tools[0] || changed.Prompts[0].Name != "q" {
		t.Errorf("after a new prompt list: tools %p (were %p), prompts %+v", &changed.Tools[0], &first.Tools[0], changed.Prompts)
	}
}
