package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// Tabs of the server detail.
const (
	tabTools     = "tools"
	tabPrompts   = "prompts"
	tabResources = "resources"
	tabInfo      = "info"
	tabLogs      = "logs"
	tabActivity  = "activity"
	tabSettings  = "settings"
)

// renderDetail shows the selected server, or what to do when there is none.
func renderDetail(v store.View, selected string) app.UI {
	srv := v.Snapshot.ServerByID(selected)
	if srv == nil {
		text := "Select a server to see its tools, prompts and resources."
		switch {
		case v.Status == store.StatusSignedOut:
			text = "Signed out: your servers show again once you sign in."
		case !v.Loaded:
			text = "Loading your servers…"
		case len(v.Snapshot.Servers) == 0:
			text = "No servers yet. Add one with its name and URL."
		}
		return app.Section().ID("server-empty").Class("sb-detail", "is-empty").Body(
			app.P().Class("sb-empty").Text(text),
		)
	}
	return &ServerDetail{
		Server: *srv, Auth: v.Auth[srv.ID],
		ToolCalls: v.CallsTo(srv.ID, wire.CallKindTool), PromptGets: v.CallsTo(srv.ID, wire.CallKindPrompt),
		ResourceReads: v.CallsTo(srv.ID, wire.CallKindResource),
		Journal:       journalOf(v, srv.ID),
		User:          v.Snapshot.User,
	}
}

// ServerDetail shows one server in tabs: tools, prompts, resources, info.
type ServerDetail struct {
	app.Compo

	Server        wire.Server
	Auth          store.AuthFlow // the authorization started here
	ToolCalls     []store.Call   // this server's calls of each kind, newest first
	PromptGets    []store.Call
	ResourceReads []store.Call
	Journal       wire.Journal // this server's logs and activity
	User          string       // the signed-in user, whose call history shows

	tab string // the open tab; tools when empty
}

// Render implements app.Composer.
func (d *ServerDetail) Render() app.UI {
	s := d.Server
	tab := d.tab
	if tab == "" {
		tab = tabTools
	}
	ready := s.State == wire.StateReady
	return app.Section().ID("server-detail").Class("sb-detail").
		DataSet("server-id", s.ID).DataSet("state", s.State).
		Aria("labelledby", "detail-title").
		Body(
			app.Header().Class("detail-head").Body(
				app.Div().Class("detail-title-row").Body(
					app.H2().ID("detail-title").Class("detail-name").Text(s.Name),
					renderServerBadge(s),
					&ConnectToggle{Server: s},
				),
				app.P().Class("detail-url").Body(
					app.Span().Class("detail-transport").Text(transportLabel(s)),
					app.Text(" "),
					app.Span().Class("detail-address").Text(s.URL),
				),
				app.If(s.State == wire.StateFailed && !s.Disconnected, func() app.UI {
					return app.P().Class("detail-error").Role("alert").Text(failedText(s.Error))
				}),
				app.If(s.State == wire.StateAuthenticating, func() app.UI { return renderAuthorize(s, d.Auth) }),
			),
			app.Div().Class("tabs").Role("tablist").Aria("label", "Server details").Body(
				d.renderTab(tab, tabTools, "Tools", len(s.Tools)),
				d.renderTab(tab, tabPrompts, "Prompts", len(s.Prompts)),
				d.renderTab(tab, tabResources, "Resources", len(s.Resources)),
				d.renderTab(tab, tabLogs, "Logs", len(d.Journal.Logs)),
				d.renderTab(tab, tabActivity, "Activity", len(d.Journal.Activity)),
				d.renderTab(tab, tabInfo, "Info", -1),
				d.renderTab(tab, tabSettings, "Settings", -1),
			),
			d.renderPanel(tab, tabTools, &ToolsTab{
				ServerID: s.ID, ServerName: s.Name, Tools: s.Tools, Ready: ready, Calls: d.ToolCalls, User: d.User,
			}),
			d.renderPanel(tab, tabPrompts, &PromptsTab{
				ServerID: s.ID, Prompts: s.Prompts, Ready: ready, Calls: d.PromptGets,
				CanComplete: s.Capabilities.CanComplete(),
			}),
			d.renderPanel(tab, tabResources, &ResourcesTab{
				ServerID: s.ID, Resources: s.Resources, Templates: s.Templates, Ready: ready,
				Calls: d.ResourceReads, Subscriptions: s.Subscriptions, Capabilities: s.Capabilities,
			}),
			d.renderPanel(tab, tabLogs, &LogsTab{ServerID: s.ID, Logging: s.Logging, Logs: d.Journal.Logs, Dropped: d.Journal.LogsDropped}),
			d.renderPanel(tab, tabActivity, &ActivityTab{ServerID: s.ID, Activity: d.Journal.Activity, Dropped: d.Journal.ActivityDropped}),
			d.renderPanel(tab, tabInfo, renderInfo(s)),
			d.renderPanel(tab, tabSettings, settingsOf(s)),
		)
}

// renderTab is one tab button; count < 0 shows none.
func (d *ServerDetail) renderTab(open, tab, label string, count int) app.UI {
	b := app.Button().ID("tab-"+tab).Class("tab").Type("button").Role("tab").
		Aria("controls", "panel-"+tab).Aria("selected", strconv.FormatBool(open == tab)).
		OnClick(func(ctx app.Context, e app.Event) { d.tab = tab }, app.EventScope(tab))
	if open != tab {
		b = b.TabIndex(-1)
	}
	return b.OnKeyDown(d.arrowKeys, app.EventScope(tab)).Body(
		app.Text(label),
		app.If(count >= 0, func() app.UI {
			return app.Span().Class("tab-count").Text(strconv.Itoa(count))
		}),
	)
}

// tabOrder is the order arrow keys move through the tabs.
var tabOrder = []string{tabTools, tabPrompts, tabResources, tabLogs, tabActivity, tabInfo, tabSettings}

// arrowKeys moves between tabs with the arrow keys, as a tablist does.
func (d *ServerDetail) arrowKeys(ctx app.Context, e app.Event) {
	step := 0
	switch e.Get("key").String() {
	case "ArrowRight":
		step = 1
	case "ArrowLeft":
		step = len(tabOrder) - 1
	default:
		return
	}
	e.PreventDefault()
	cur := 0
	for i, t := range tabOrder {
		if t == d.tab || (d.tab == "" && t == tabTools) {
			cur = i
		}
	}
	d.tab = tabOrder[(cur+step)%len(tabOrder)]
	focusLater(ctx, "tab-"+d.tab)
}

// renderPanel wraps a tab's content; closed panels stay mounted (hidden), so
// what was typed in them survives switching tabs.
func (d *ServerDetail) renderPanel(open, tab string, content app.UI) app.UI {
	return hiddenIf(app.Div().ID("panel-"+tab).Class("tab-panel").Role("tabpanel").
		Aria("labelledby", "tab-"+tab), open != tab).Body(content)
}

// settingsOf is a server's Settings tab: its form, or a note for a server of
// the relay's configuration, which only the operator edits.
func settingsOf(s wire.Server) app.UI {
	if s.Configured {
		return app.P().Class("sb-note").Text("This server comes from the relay's configuration: only the relay's operator can change it.")
	}
	return &ServerSettings{Server: s}
}
