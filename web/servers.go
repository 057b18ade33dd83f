package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// What a server row is busy with.
const (
	busyRetry  = "retry"
	busyRemove = "remove"
)

// ServerList is the left column: the add-server form, a filter and one row
// per server. It holds only what the person is doing with the rows.
type ServerList struct {
	app.Compo
	mounted

	Servers   []wire.Server
	Catalog   []wire.CatalogEntry // the operator's offer, under Add server
	Selected  string
	Loaded    bool
	SignedOut bool                      // the relay signed this page out: nothing shows until a sign-in
	Asking    map[string]int            // server id → its asks waiting
	Auth      map[string]store.AuthFlow // server id → the authorization started here

	filter     string            // what is typed in the filter
	confirming string            // id of the server whose removal waits for a yes
	busy       map[string]string // server id → the op running on it
	failed     map[string]string // server id → why its last op failed
	marks      newMarks
}

// OnUpdate marks the servers added since the last render and forgets the
// state of rows that are gone.
func (l *ServerList) OnUpdate(ctx app.Context) {
	if !l.Loaded {
		return
	}
	ids := make([]string, len(l.Servers))
	present := map[string]bool{}
	for i, s := range l.Servers {
		ids[i] = s.ID
		present[s.ID] = true
	}
	l.marks.update(ctx, ids)
	for id := range l.busy {
		if !present[id] {
			delete(l.busy, id)
			delete(l.failed, id)
		}
	}
}

// Render implements app.Composer.
func (l *ServerList) Render() app.UI {
	shown := l.filtered()
	return app.Aside().ID("server-list").Class("sb-servers").Aria("label", "Servers").Body(
		&AddServerForm{Taken: serverNames(l.Servers)},
		app.If(len(l.Catalog) > 0, func() app.UI { return &ServerCatalog{Entries: l.Catalog, Servers: l.Servers} }),
		&ServerTransfer{Servers: l.Servers},
		app.Div().Class("sb-filter").Body(
			app.Label().For("server-filter").Text("Filter servers"),
			app.Input().ID("server-filter").Type("search").AutoComplete(false).
				Placeholder("Name or URL").
				OnInput(func(ctx app.Context, e app.Event) { l.filter = ctx.JSSrc().Get("value").String() }),
		),
		app.Ul().Class("server-rows").Body(
			app.Range(shown).Slice(func(i int) app.UI { return l.renderRow(shown[i]) }),
		),
		app.P().Class("sb-empty").Text(l.emptyText(len(shown))),
	)
}

// filtered returns the servers whose name or URL contains the filter.
func (l *ServerList) filtered() []wire.Server {
	f := strings.ToLower(strings.TrimSpace(l.filter))
	if f == "" {
		return l.Servers
	}
	var out []wire.Server
	for _, s := range l.Servers {
		if strings.Contains(strings.ToLower(s.Name), f) || strings.Contains(strings.ToLower(s.URL), f) {
			out = append(out, s)
		}
	}
	return out
}

// emptyText says why no row shows, or "" when some do.
func (l *ServerList) emptyText(shown int) string {
	switch {
	case shown > 0:
		return ""
	case l.SignedOut:
		return "Signed out."
	case !l.Loaded:
		return "Waiting for the relay…"
	case len(l.Servers) == 0:
		return "No servers yet. Add one above with its name and URL."
	default:
		return "No server matches “" + strings.TrimSpace(l.filter) + "”."
	}
}

func (l *ServerList) renderRow(s wire.Server) app.UI {
	id := s.ID
	selected := id == l.Selected
	classes := []string{"server-row", l.marks.class(id)}
	if selected {
		classes = append(classes, "is-selected")
	}
	row := app.Li().Class(classes...).
		DataSet("server-id", id).DataSet("server-name", s.Name).DataSet("state", s.State).
		OnClick(func(ctx app.Context, e app.Event) { ctx.NewActionWithValue(actionSelect, id) }, app.EventScope(id))
	if selected {
		row = row.Aria("current", "true")
	}
	return row.Body(
		app.Div().Class("server-head").Body(
			app.Button().Class("server-open").Type("button").Title("Show "+s.Name).Body(
				app.Span().Class("server-name").Text(s.Name),
			),
			app.If(l.Asking[id] > 0, func() app.UI { return renderAskDot(s, l.Asking[id]) }),
			renderServerBadge(s),
		),
		app.Div().Class("server-url").Title(s.URL).Text(transportAndHost(s)),
		app.If(s.State == wire.StateAuthenticating, func() app.UI { return renderAuthorize(s, l.Auth[id]) }),
		app.If(s.State == wire.StateFailed && !s.Disconnected, func() app.UI {
			return app.P().Class("server-error").Text(failedText(s.Error))
		}),
		app.If(l.failed[id] != "", func() app.UI {
			return app.P().Class("row-error").Role("alert").Text(l.failed[id])
		}),
		app.Div().Class("server-foot").Body(
			app.Div().Class("server-counts").Body(
				renderCount("count-tools", len(s.Tools), "tool", "tools"),
				renderCount("count-prompts", len(s.Prompts), "prompt", "prompts"),
				renderCount("count-resources", len(s.Resources), "resource", "resources"),
			),
			l.renderActions(s),
		),
	)
}

// renderActions shows Retry for a failed server and Remove, which asks
// for confirmation in place.
func (l *ServerList) renderActions(s wire.Server) app.UI {
	id := s.ID
	busy := l.busy[id]
	if l.confirming == id {
		keep := func(ctx app.Context) {
			l.confirming = ""
			focusLater(ctx, "remove-"+id)
		}
		return app.Div().Class("server-actions", "is-confirming").
			OnKeyDown(func(ctx app.Context, e app.Event) {
				if e.Get("key").String() == "Escape" {
					keep(ctx)
				}
			}, app.EventScope(id)).
			Body(
				app.Span().Class("confirm-question").Text("Remove "+s.Name+"?"),
				app.Button().ID("confirm-remove-"+id).Class("confirm-remove", "sb-button", "is-danger").Type("button").
					Text("Remove").OnClick(func(ctx app.Context, e app.Event) { l.remove(id) }, app.EventScope(id)),
				app.Button().Class("cancel-remove", "sb-button").Type("button").
					Text("Cancel").OnClick(func(ctx app.Context, e app.Event) { keep(ctx) }, app.EventScope(id)),
			)
	}
	return app.Div().Class("server-actions").Body(
		app.If(s.State == wire.StateFailed && !s.Disconnected, func() app.UI {
			return disabledIf(app.Button().Class("retry-server", "sb-button").Type("button"), busy != "").
				Text(choose(busy == busyRetry, "Retrying…", "Retry")).
				OnClick(func(ctx app.Context, e app.Event) { l.retry(id) }, app.EventScope(id))
		}),
		app.If(s.Configured, func() app.UI {
			return app.Span().Class("server-configured").Text("From the relay's configuration")
		}).Else(func() app.UI { return l.renderRemove(s) }),
	)
}

// renderRemove is the Remove button of a person's own server.
func (l *ServerList) renderRemove(s wire.Server) app.UI {
	id, busy := s.ID, l.busy[s.ID]
	return disabledIf(app.Button().ID("remove-"+id).Class("remove-server", "sb-button", "is-quiet").Type("button"), busy != "").
		Aria("label", choose(busy == busyRemove, "Removing "+s.Name+"…", "Remove "+s.Name)).
		Text(choose(busy == busyRemove, "Removing…", "Remove")).
		OnClick(func(ctx app.Context, e app.Event) {
			l.confirming = id
			focusLater(ctx, "confirm-remove-"+id)
		}, app.EventScope(id))
}

func (l *ServerList) retry(id string) {
	l.start(id, busyRetry, wire.OpRetryServer, "Retry failed: ")
}

func (l *ServerList) remove(id string) {
	l.confirming = ""
	l.start(id, busyRemove, wire.OpRemoveServer, "Remove failed: ")
}

// start sends op for server id and shows its failure on the row.
func (l *ServerList) start(id, busy string, op wire.OpName, failure string) {
	if l.busy == nil {
		l.busy, l.failed = map[string]string{}, map[string]string{}
	}
	l.busy[id] = busy
	delete(l.failed, id)
	send(op, wire.ServerArgs{Server: id}, func(r store.Reply) {
		l.later(func(app.Context) {
			delete(l.busy, id)
			if r.Err != nil {
				l.failed[id] = opFailure(failure, r.Err)
			}
		})
	})
}

// renderAskDot marks a server whose asks wait; it takes the focus to the
// first of them.
func renderAskDot(s wire.Server, n int) app.UI {
	id := s.ID
	label := strconv.Itoa(n) + " requests from " + s.Name + " are waiting: show them"
	if n == 1 {
		label = "A request from " + s.Name + " is waiting: show it"
	}
	return app.Button().Class("ask-dot").Type("button").DataSet("count", n).
		Aria("label", label).Title(label).
		OnClick(func(ctx app.Context, e app.Event) { focusAsksOf(id) }, app.EventScope(id)).
		Body(app.Span().Class("ask-dot-count").Aria("hidden", "true").Text(strconv.Itoa(n)))
}

// renderStateBadge shows a server state as a word on its colour.
func renderStateBadge(state wire.ServerState) app.UI {
	return app.Span().Class("state-badge").DataSet("state", state).Text(string(state))
}

// renderCount shows "<n> tools" with the number in its own element.
func renderCount(class string, n int, one, many string) app.UI {
	word := many
	if n == 1 {
		word = one
	}
	return app.Span().Class("count").Body(
		app.Span().Class(class).Text(strconv.Itoa(n)),
		app.Text(" "+word),
	)
}

// transportAndHost is the small print under a server's name.
func transportAndHost(s wire.Server) string {
	host := s.URL
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		host = u.Host
	}
	if s.Transport == "" {
		return host
	}
	if host == "" {
		return transportLabel(s)
	}
	return transportLabel(s) + " · " + host
}

// failedText is the error of a failed server, or a fallback when it has none.
func failedText(err string) string {
	if err == "" {
		return "Connection failed."
	}
	return err
}

// renderServerBadge is a server's state badge, or "disconnected" while the
// person keeps it so.
func renderServerBadge(s wire.Server) app.UI {
	if s.Disconnected {
		return app.Span().Class("state-badge").DataSet("state", "disconnected").Text("disconnected")
	}
	return renderStateBadge(s.State)
}

// serverNames lists the names of servers.
func serverNames(servers []wire.Server) []string {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	return names
}

// transportLabel names a server's transport, with the one auto found.
func transportLabel(s wire.Server) string {
	if s.TransportInUse != "" && s.TransportInUse != s.Transport {
		return string(s.Transport) + " (" + string(s.TransportInUse) + ")"
	}
	return string(s.Transport)
}
