package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestLargeResultReachesTheOpWholeUpToTheLimit(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	const size = 2_000_000
	f.conn(id).call = func(context.Context, string) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("z", size)}}}, nil
	}
	sub := s.Subscribe(wire.Hello{})
	snapshotOf(t, sub)
	answer := func(opID string) wire.Frame {
		t.Helper()
		fr, err := wire.Op(opID, wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "big"})
		if err != nil {
			t.Fatal(err)
		}
		sub.HandleOp(fr)
		for {
			if fr := next(t, sub); fr.ID == opID {
				return fr
			}
		}
	}
	fr := answer("whole")
	var res wire.CallToolResult
	if fr.Type != wire.TypeResult || json.Unmarshal(fr.Data, &res) != nil || len(res.Content) != 1 || len(res.Content[0].Text) != size {
		t.Fatalf("answer %s %+v: want the whole 2 MB result", fr.Type, fr.Error)
	}

	f.m.maxResult = 1 << 20 // as Config.MaxResult would
	fr = answer("cut")
	if fr.Type != wire.TypeError || fr.Error.Code != wire.CodeTooLarge || !strings.Contains(fr.Error.Message, "limit of 1048576 bytes") {
		t.Fatalf("answer %s %+v: want too large naming the limit", fr.Type, fr.Error)
	}
}
