package web

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// activityWords name the kinds of notification.
var activityWords = map[wire.ActivityKind]string{
	wire.ActivityToolsChanged:      "Tools changed",
	wire.ActivityPromptsChanged:    "Prompts changed",
	wire.ActivityResourcesChanged:  "Resources changed",
	wire.ActivityResourceUpdated:   "Resource updated",
	wire.ActivityProgress:          "Progress",
	wire.ActivityCancelled:         "Cancelled",
	wire.ActivityElicitComplete:    "Web page done",
	wire.ActivitySamplingForwarded: "Answered by agent",
}

// ActivityTab shows what a server notified, as it arrives: list changes,
// resource updates, progress, cancellations and finished web page
// interactions, each with its time. The relay keeps the last
// wire.MaxActivity entries of each server.
type ActivityTab struct {
	app.Compo
	mounted

	ServerID string
	Activity []wire.Activity
	Dropped  uint64

	clearing bool
	problem  string
	marks    newMarks
}

// CompoID gives each server its own tab.
func (t *ActivityTab) CompoID() string { return t.ServerID }

// OnInit takes the entries shown first as known.
func (t *ActivityTab) OnInit() { t.marks.seed(activityKeys(t.Activity)) }

// OnUpdate marks the entries that arrived since the last render.
func (t *ActivityTab) OnUpdate(ctx app.Context) { t.marks.update(ctx, activityKeys(t.Activity)) }

// Render implements app.Composer.
func (t *ActivityTab) Render() app.UI {
	return app.Div().Class("activity-tab", "journal-tab").Body(
		app.Div().Class("journal-controls").Body(
			disabledIf(app.Button().ID("activity-clear").Class("sb-button", "is-quiet").Type("button"), t.clearing || len(t.Activity) == 0).
				Text(choose(t.clearing, "Clearing…", "Clear activity")).
				OnClick(func(ctx app.Context, e app.Event) { t.clear() }),
		),
		app.P().ID("activity-error").Class("sb-error").Role("alert").Text(t.problem),
		app.P().ID("activity-count").Class("journal-count").Text(journalCount(len(t.Activity), len(t.Activity), t.Dropped, "notification")),
		app.Ol().ID("activity-list").Class("activity-list", "journal-list").Aria("label", "Notifications, oldest first").Body(
			app.Range(t.Activity).Slice(func(i int) app.UI { return t.renderEntry(t.Activity[i]) }),
		),
		app.P().Class("sb-empty").Text(choose(len(t.Activity) == 0, "No notifications from this server yet.", "")),
	)
}

func (t *ActivityTab) renderEntry(a wire.Activity) app.UI {
	kind := activityWords[a.Kind]
	if kind == "" {
		kind = string(a.Kind)
	}
	return app.Li().Class("activity-entry", "journal-entry", t.marks.class(activityKey(a))).
		DataSet("kind", a.Kind).Body(
		app.Time().Class("journal-time").DateTime(a.Time.Format(time.RFC3339Nano)).Text(timeOfDay(a.Time)),
		app.Span().Class("activity-kind").Text(kind),
		app.Span().Class("activity-text").Text(a.Text),
	)
}

// clear empties the activity on every dashboard.
func (t *ActivityTab) clear() {
	t.clearing, t.problem = true, ""
	send(wire.OpClearActivity, wire.ServerArgs{Server: t.ServerID}, func(r store.Reply) {
		t.later(func(app.Context) {
			t.clearing = false
			if r.Err != nil {
				t.problem = opFailure("Could not clear the activity: ", r.Err)
			}
		})
	})
}

func activityKey(a wire.Activity) string { return strconv.FormatUint(a.N, 10) }

func activityKeys(list []wire.Activity) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = activityKey(a)
	}
	return out
}

// journalOf is the journal of server id in v, empty when it has none.
func journalOf(v store.View, id string) wire.Journal {
	if j := v.Snapshot.JournalOf(id); j != nil {
		return *j
	}
	return wire.Journal{Server: id}
}
