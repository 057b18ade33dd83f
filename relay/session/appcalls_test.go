package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func stateCall(snap wire.Snapshot, id string) (wire.Call, bool) {
	for _, c := range snap.Calls {
		if c.ID == id {
			return c, true
		}
	}
	return wire.Call{}, false
}

// A view calls only its own server's tools that are for views; its calls
// show as the view's in the state, with their arguments.
func TestAViewCallsOnlyItsServersToolsForViews(t *testing.T) {
	f := newFixture(t, t.TempDir())
	s := f.m.Session("alice")
	id := addServer(t, s, "a", "http://127.0.0.1:9/a")
	other := addServer(t, s, "b", "http://127.0.0.1:9/b")
	view := mcp.Meta{"ui": map[string]any{"resourceUri": "ui://a/view"}}
	f.conn(id).emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: []*mcp.Tool{
		{Name: "show", Meta: view},
		{Name: "refresh", Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"app"}}}},
		{Name: "secret", Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"model"}}}},
	}}})
	f.conn(other).emit(conn.State{State: wire.StateReady, Lists: &conn.Lists{Tools: []*mcp.Tool{{Name: "wipe"}}}})
	d := openDashboard(t, s)

	for _, c := range []struct {
		server, tool, app string
		want              wire.Code
	}{
		{id, "secret", "ui://a/view", wire.CodeBadRequest},       // not for views
		{id, "refresh", "ui://a/elsewhere", wire.CodeBadRequest}, // not a view of the server
		{other, "wipe", "ui://a/view", wire.CodeBadRequest},      // another server's tool
		{id, "missing", "ui://a/view", wire.CodeNotFound},
	} {
		rep := d.Op(wire.OpCallTool, wire.CallToolArgs{Server: c.server, Name: c.tool, App: c.app, Call: "refused"})
		if rep.Err == nil || rep.Err.Code != c.want {
			t.Errorf("%s called by %s: %+v, want %s", c.tool, c.app, rep.Err, c.want)
		}
	}
	if rep := d.Op(wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "refresh", App: "ui://a/view", Call: "by-view", Arguments: json.RawMessage(`{"page":2}`)}); rep.Err != nil {
		t.Fatalf("the view's call: %+v", rep.Err)
	}
	big := json.RawMessage(`{"x":"` + strings.Repeat("x", wire.MaxCallArguments) + `"}`)
	if rep := d.Op(wire.OpCallTool, wire.CallToolArgs{Server: id, Name: "show", Call: "big", Arguments: big}); rep.Err != nil {
		t.Fatalf("a call with big arguments: %+v", rep.Err)
	}
	snap := d.until("both calls done", func(s wire.Snapshot) bool {
		return callState(s, "by-view") == wire.CallDone && callState(s, "big") == wire.CallDone
	})
	if _, ok := stateCall(snap, "refused"); ok {
		t.Error("a refused call is in the state")
	}
	if c, _ := stateCall(snap, "by-view"); c.App != "ui://a/view" || string(c.Arguments) != `{"page":2}` {
		t.Errorf("the view's call in the state: app %q, arguments %s", c.App, c.Arguments)
	}
	if c, _ := stateCall(snap, "big"); c.App != "" || c.Arguments != nil {
		t.Errorf("the big call in the state: app %q, %d bytes of arguments", c.App, len(c.Arguments))
	}
}
