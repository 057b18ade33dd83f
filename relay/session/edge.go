package session

import (
	"context"
	"log/slog"

	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/mcpwire"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The edge: a connection reports its [conn.State] in the go-sdk's MCP
// types, untrusted; the session shows its servers to dashboards as
// [wire.Server]s. An edge per dialed connection converts one into the
// other (relay/mcpwire): capped, sanitized, icons inlined. It converts a
// list again only when the connection reported a new one (conn.Lists are
// replaced, never modified, so their identity says so). The registration,
// not the connection, names the server ([Session.stampLocked]).

// edge converts the states of one connection. Its conversion runs on the
// connection's reporting goroutine, outside the session's lock.
type edge struct {
	conv *mcpwire.Converter
	// ctx ends when the connection is closed: an icon fetch in flight
	// stops with it.
	ctx  context.Context
	stop context.CancelFunc

	// The lists last converted, and what they became.
	lists     conn.Lists
	tools     []wire.Tool
	prompts   []wire.Prompt
	resources []wire.Resource
	templates []wire.ResourceTemplate
}

// newEdge returns the edge of a new connection, fetching icons through
// m's icon client.
func (m *Manager) newEdge(log *slog.Logger) *edge {
	ctx, stop := context.WithCancel(context.Background())
	return &edge{conv: mcpwire.NewConverter(m.icons, log), ctx: ctx, stop: stop}
}

// server converts st.
func (e *edge) server(st conn.State) wire.Server {
	out := wire.Server{
		State:              st.State,
		Error:              st.Error,
		TransportInUse:     st.TransportInUse,
		Auth:               st.Auth,
		Subscriptions:      st.Subscriptions,
		ClientCapabilities: mcpwire.ClientCapabilities(st.Client),
	}
	if st.Init != nil {
		var tasks *wire.TaskCapability
		if t := st.Tasks; t != nil {
			tasks = &wire.TaskCapability{List: t.List, Cancel: t.Cancel, ToolCall: t.ToolCall}
		}
		mcpwire.Initialized(&out, st.Init, tasks)
	}
	if st.Lists != nil {
		e.convert(st.Lists)
	}
	out.Tools, out.Prompts, out.Resources, out.Templates = e.tools, e.prompts, e.resources, e.templates
	return out
}

// convert converts the lists of l that are not those converted last.
func (e *edge) convert(l *conn.Lists) {
	if !same(l.Tools, e.lists.Tools) { // the tools' task support goes with them
		e.tools = e.conv.Tools(e.ctx, l.Tools, l.TaskSupport, l.Uncallable)
	}
	if !same(l.Prompts, e.lists.Prompts) {
		e.prompts = e.conv.Prompts(e.ctx, l.Prompts)
	}
	if !same(l.Resources, e.lists.Resources) {
		e.resources = e.conv.Resources(e.ctx, l.Resources)
	}
	if !same(l.Templates, e.lists.Templates) {
		e.templates = e.conv.Templates(e.ctx, l.Templates)
	}
	e.lists = *l
}

// same reports whether a and b are the same list: the same items of the
// same backing array.
func same[T any](a, b []*T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
