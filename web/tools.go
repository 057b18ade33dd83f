package web

import (
	"encoding/json"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// ToolsTab lists a server's tools; selecting one opens its call panel.
type ToolsTab struct {
	app.Compo

	ServerID   string
	ServerName string
	Tools      []wire.Tool
	Calls      []store.Call // tool calls to this server, newest first
	Ready      bool
	User       string // whose history this browser shows

	selected  string      // name of the tool whose panel is open
	viewCall  string      // the call whose App view shows; "" for the newest
	lastView  *store.Call // the call whose view showed last
	marks     newMarks
	history   []historyEntry // this server's calls made in this browser, newest first
	presets   toolPreset     // what the history last asked the panel to show
	presetSeq int
}

// CompoID makes another server's tools a new list, with nothing selected or marked.
func (t *ToolsTab) CompoID() string { return t.ServerID }

// OnInit takes the tools shown first as known.
func (t *ToolsTab) OnInit() { t.marks.seed(toolNames(t.Tools)) }

// OnMount loads the history of calls made in this browser.
func (t *ToolsTab) OnMount(ctx app.Context) { t.settleHistory(ctx) }

// OnUpdate marks the tools that arrived since the last render, and records
// in the history the calls that ended.
func (t *ToolsTab) OnUpdate(ctx app.Context) {
	t.marks.update(ctx, toolNames(t.Tools))
	t.settleHistory(ctx)
}

// settleHistory records the calls that ended and reads the server's history.
func (t *ToolsTab) settleHistory(ctx app.Context) {
	h := historyOf(ctx, t.User)
	h.settle(ctx, t.Calls)
	t.history = h.of(t.ServerID)
}

// Render implements app.Composer.
func (t *ToolsTab) Render() app.UI {
	return app.Div().Class("tools-tab", "split").Body(
		app.Div().Class("split-list").Body(
			app.Ul().Class("tool-list", "item-list").Body(
				app.Range(t.Tools).Slice(func(i int) app.UI { return t.renderTool(t.Tools[i]) }),
			),
			app.P().Class("sb-empty").Text(emptyListText(len(t.Tools), t.Ready, "tools")),
		),
		app.Div().Class("split-side").Body(
			t.renderPanel(),
			t.renderView(),
			renderToolCalls("Tool calls", t.Calls, t.Tools, func(id string) { t.viewCall = id }),
			t.renderHistory(),
		),
	)
}

func (t *ToolsTab) renderTool(tool wire.Tool) app.UI {
	name := tool.Name
	selected := name == t.selected
	classes := []string{"tool-item", "item", t.marks.class(name)}
	if selected {
		classes = append(classes, "is-selected")
	}
	return app.Li().Class(classes...).DataSet("tool-name", name).Body(
		app.Button().Class("item-open", "tool-open").Type("button").
			Aria("expanded", choose(selected, "true", "false")).Aria("controls", "tool-panel").
			OnClick(func(ctx app.Context, e app.Event) {
				t.selected, t.presets = name, toolPreset{}
				focusFirstLater(ctx, "#tool-panel .tf-input, #tool-panel #tool-args, #tool-call")
			}, app.EventScope(name)).
			Body(
				renderToolIcon(tool),
				app.Span().Class("tool-title", "item-title").Text(titleOr(tool.Title, name)),
				app.If(tool.Title != "" && tool.Title != name, func() app.UI {
					return app.Span().Class("item-key").Text(name)
				}),
				app.Span().Class("tool-description", "item-description").Text(tool.Description),
				renderToolBadge(tool),
			),
	)
}

// renderView is the App view of a call: the one chosen, else the newest
// call of a tool with a view. It stands apart from the list of calls, so
// calls coming and going around it never reload it, and it stays when its
// call leaves the list (a view's own calls can push it out).
func (t *ToolsTab) renderView() app.UI {
	var shown *store.Call
	for i, c := range t.Calls {
		if !hasView(c, t.Tools) {
			continue
		}
		if c.ID == t.viewCall {
			shown = &t.Calls[i]
			break
		}
		if shown == nil && t.viewCall == "" {
			shown = &t.Calls[i]
		}
	}
	if shown == nil {
		shown = t.lastView
	}
	if shown == nil || (t.viewCall != "" && shown.ID != t.viewCall) {
		return app.Text("")
	}
	i := slices.IndexFunc(t.Tools, func(tool wire.Tool) bool { return tool.Name == shown.Name })
	if i < 0 {
		return app.Text("")
	}
	t.lastView = shown
	return app.Div().Class("tool-view").Body(renderToolOutcome(*shown, &t.Tools[i], t.ServerName, ""))
}

// renderPanel is the selected tool's call panel, or a hint.
func (t *ToolsTab) renderPanel() app.UI {
	for _, tool := range t.Tools {
		if tool.Name == t.selected {
			return &ToolPanel{ServerID: t.ServerID, Tool: tool, Ready: t.Ready, Preset: t.presets, OnSent: t.sent}
		}
	}
	text := "Select a tool to call it."
	if t.selected != "" {
		text = "The server no longer offers the tool “" + t.selected + "”."
	}
	return app.Div().ID("tool-panel").Class("panel", "is-hint").Body(app.P().Class("sb-empty").Text(text))
}

// sent records a call the panel made.
func (t *ToolsTab) sent(ctx app.Context, tool, id string, args json.RawMessage) {
	h := historyOf(ctx, t.User)
	h.add(ctx, t.ServerID, tool, id, args)
	t.history = h.of(t.ServerID)
}

func toolNames(tools []wire.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// titleOr returns title, or name when there is no title.
func titleOr(title, name string) string {
	if title != "" {
		return title
	}
	return name
}

// emptyListText says why a list of a server's items is empty, or "" when it is not.
func emptyListText(n int, ready bool, items string) string {
	switch {
	case n > 0:
		return ""
	case ready:
		return "This server offers no " + items + "."
	default:
		return "No " + items + " yet: the server is not ready."
	}
}
