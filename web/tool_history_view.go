package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// historyWords say an entry's outcome.
var historyWords = map[string]string{
	"ok": "Done", "error": "Failed", "cancelled": "Cancelled",
	outcomePending: "Running…", outcomeUnknown: "Unknown: the page was left before it ended",
}

// renderHistory lists the calls made to this server in this browser, with
// Re-run and Edit and re-run.
func (t *ToolsTab) renderHistory() app.UI {
	entries := t.history
	return hiddenIf(app.Section().ID("tool-history").Class("tool-history").Aria("label", "Call history in this browser"), len(entries) == 0).Body(
		app.Div().Class("calls-title").Body(
			app.H3().Class("calls-title").Text("History in this browser"),
			app.Button().ID("history-clear").Class("sb-button").Type("button").Text("Clear").
				OnClick(func(ctx app.Context, e app.Event) {
					historyOf(ctx, t.User).clear(ctx, t.ServerID)
					t.history = nil
				}),
		),
		app.Ol().Class("history-list").Body(
			app.Range(entries).Slice(func(i int) app.UI { return t.renderEntry(i, entries[i]) }),
		),
	)
}

// renderEntry is one past call.
func (t *ToolsTab) renderEntry(i int, e historyEntry) app.UI {
	tool, known := t.toolNamed(e.Tool)
	scope := app.EventScope(e.Page, e.ID, strconv.Itoa(i))
	meta := e.Started.Local().Format("2006-01-02 15:04:05")
	if e.Millis > 0 || e.Outcome == "ok" {
		meta += " · " + strconv.FormatInt(e.Millis, 10) + " ms"
	}
	return app.Li().Class("history-entry").DataSet("tool-name", e.Tool).DataSet("outcome", e.Outcome).Body(
		app.Div().Class("call-head").Body(
			app.Span().Class("call-name").Text(e.Tool),
			app.Span().Class("history-outcome").Text(historyWords[e.Outcome]),
			app.Span().Class("history-meta", "sb-note").Text(meta),
		),
		app.If(e.Detail != "", func() app.UI {
			return app.P().Class("history-detail", "sb-note").Text(visibleControls(e.Detail))
		}),
		app.If(e.Args != nil, func() app.UI {
			return app.Pre().Class("history-args", "code-block").Text(visibleControls(store.IndentJSON(e.Args)))
		}).Else(func() app.UI {
			return app.P().Class("sb-note").Text("The arguments were too large to keep.")
		}),
		app.Div().Class("panel-actions").Body(
			disabledIf(app.Button().Class("history-rerun", "sb-button").Type("button"), !known || tool.Uncallable != "" || e.Args == nil).
				Text("Re-run").OnClick(func(ctx app.Context, ev app.Event) { t.preset(ctx, e, true) }, scope),
			disabledIf(app.Button().Class("history-edit", "sb-button").Type("button"), !known || e.Args == nil).
				Text("Edit and re-run").OnClick(func(ctx app.Context, ev app.Event) { t.preset(ctx, e, false) }, scope),
		),
	)
}

// preset opens the entry's tool with its arguments, and runs it if asked.
func (t *ToolsTab) preset(ctx app.Context, e historyEntry, run bool) {
	t.selected = e.Tool
	t.presetSeq++
	t.presets = toolPreset{Args: e.Args, Run: run, Seq: t.presetSeq}
	focusLater(ctx, "tool-call")
}

// toolNamed returns the server's tool called name, if it offers one.
func (t *ToolsTab) toolNamed(name string) (wire.Tool, bool) {
	for _, tool := range t.Tools {
		if tool.Name == name {
			return tool, true
		}
	}
	return wire.Tool{}, false
}
