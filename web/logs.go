package web

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// The ids of the Logs tab's controls.
const (
	logLevelID  = "log-level"
	logFilterID = "log-filter"
)

// LogsTab shows a server's log messages as they arrive: time, level, logger
// and data (text, or a JSON tree to unfold). A person chooses the level the
// server should log from (when it declares logging), filters what is shown
// by level, and clears the list. The relay keeps the last wire.MaxLogs
// messages of each server and says how many older ones it let go.
type LogsTab struct {
	app.Compo
	mounted

	ServerID string
	Logging  *wire.Logging // nil when the server does not declare logging
	Logs     []wire.LogEntry
	Dropped  uint64

	filter   wire.LogLevel // the lowest level shown; all when empty
	saving   bool
	clearing bool
	problem  string
	marks    newMarks
}

// CompoID gives each server its own tab.
func (t *LogsTab) CompoID() string { return t.ServerID }

// OnInit takes the messages shown first as known.
func (t *LogsTab) OnInit() { t.marks.seed(logKeys(t.Logs)) }

// OnMount shows the relay's level in the selector.
func (t *LogsTab) OnMount(ctx app.Context) {
	t.mounted.OnMount(ctx)
	t.showLevel(ctx)
}

// OnUpdate marks new messages and shows the relay's level.
func (t *LogsTab) OnUpdate(ctx app.Context) {
	t.marks.update(ctx, logKeys(t.Logs))
	t.showLevel(ctx)
}

// Render implements app.Composer.
func (t *LogsTab) Render() app.UI {
	shown := t.shown()
	return app.Div().Class("logs-tab", "journal-tab").Body(
		app.Div().Class("journal-controls").Body(
			t.renderLevel(),
			app.Label().Class("journal-control").For(logFilterID).Body(
				app.Span().Text("Show "),
				app.Select().ID(logFilterID).OnChange(func(ctx app.Context, e app.Event) {
					t.filter = wire.LogLevel(ctx.JSSrc().Get("value").String())
				}).Body(
					app.Option().Value("").Text("all levels"),
					app.Range(wire.LogLevels[1:]).Slice(func(i int) app.UI {
						l := wire.LogLevels[i+1]
						return app.Option().Value(l).Text(string(l) + " and above")
					}),
				),
			),
			disabledIf(app.Button().ID("logs-clear").Class("sb-button", "is-quiet").Type("button"), t.clearing || len(t.Logs) == 0).
				Text(choose(t.clearing, "Clearing…", "Clear logs")).
				OnClick(func(ctx app.Context, e app.Event) { t.clear() }),
		),
		app.P().ID("logs-error").Class("sb-error").Role("alert").Text(t.problem),
		app.P().ID("logs-count").Class("journal-count").Text(journalCount(len(t.Logs), len(shown), t.Dropped, "message")),
		app.Ol().ID("log-list").Class("log-list", "journal-list").Aria("label", "Log messages, oldest first").Body(
			app.Range(shown).Slice(func(i int) app.UI { return t.renderEntry(shown[i]) }),
		),
		app.P().Class("sb-empty").Text(choose(len(t.Logs) == 0, t.emptyText(), "")),
	)
}

// renderLevel is the selector of the level asked of the server.
func (t *LogsTab) renderLevel() app.UI {
	if t.Logging == nil {
		return app.P().ID("log-level-none").Class("field-help").Text("This server does not declare logging.")
	}
	return app.Label().Class("journal-control").For(logLevelID).Body(
		app.Span().Text("Server sends "),
		disabledIf(app.Select().ID(logLevelID), t.saving).OnChange(func(ctx app.Context, e app.Event) {
			t.setLevel(wire.LogLevel(ctx.JSSrc().Get("value").String()))
		}).Body(
			app.Option().Value("").Text("no log messages"),
			app.Range(wire.LogLevels).Slice(func(i int) app.UI {
				l := wire.LogLevels[i]
				return app.Option().Value(l).Text(string(l) + " and above")
			}),
		),
	)
}

func (t *LogsTab) emptyText() string {
	if t.Logging == nil || t.Logging.Level != "" {
		return "No log messages yet."
	}
	return "No log messages: choose a level to ask the server for them."
}

// renderEntry is one message.
func (t *LogsTab) renderEntry(e wire.LogEntry) app.UI {
	return app.Li().Class("log-entry", "journal-entry", t.marks.class(logKey(e))).
		DataSet("level", e.Level).DataSet("n", e.N).Body(
		app.Time().Class("journal-time").DateTime(e.Time.Format(time.RFC3339Nano)).Text(timeOfDay(e.Time)),
		app.Span().Class("log-level", "level-"+levelClass(e.Level)).Text(string(e.Level)),
		app.If(e.Logger != "", func() app.UI { return app.Span().Class("log-logger").Text(e.Logger) }),
		renderLogData(e.Data),
	)
}

// shown is the messages the filter lets through.
func (t *LogsTab) shown() []wire.LogEntry {
	min := wire.LevelRank(t.filter)
	if min <= 0 {
		return t.Logs
	}
	out := make([]wire.LogEntry, 0, len(t.Logs))
	for _, e := range t.Logs {
		if wire.LevelRank(e.Level) >= min {
			out = append(out, e)
		}
	}
	return out
}

// showLevel puts the relay's level in the selector, after the render: a
// select keeps what was picked until told otherwise, and a refused change
// must show the relay's level again.
func (t *LogsTab) showLevel(ctx app.Context) {
	if t.Logging == nil {
		return
	}
	level := t.Logging.Level
	ctx.Defer(func(app.Context) { setDOMValue(logLevelID, string(level)) })
}

// setLevel asks the relay for a new level.
func (t *LogsTab) setLevel(level wire.LogLevel) {
	t.saving, t.problem = true, ""
	send(wire.OpSetLogLevel, wire.SetLogLevelArgs{Server: t.ServerID, Level: level}, func(r store.Reply) {
		t.later(func(ctx app.Context) {
			t.saving = false
			if r.Err != nil {
				t.problem = opFailure("Could not change the log level: ", r.Err)
			}
			t.showLevel(ctx)
		})
	})
}

// clear empties the logs on every dashboard.
func (t *LogsTab) clear() {
	t.clearing, t.problem = true, ""
	send(wire.OpClearLogs, wire.ServerArgs{Server: t.ServerID}, func(r store.Reply) {
		t.later(func(app.Context) {
			t.clearing = false
			if r.Err != nil {
				t.problem = opFailure("Could not clear the logs: ", r.Err)
			}
		})
	})
}

// renderLogData shows a message's data: a string as text, anything else
// as a tree whose nodes unfold (or as text when too big for one).
func renderLogData(data json.RawMessage) app.UI {
	if len(data) == 0 {
		return app.Span().Class("log-data", "sb-empty").Text("(no data)")
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		return app.Pre().Class("log-data", "log-text").Text(s)
	}
	root, ok := parseJSONTree(string(data))
	if !ok {
		return app.Pre().Class("log-data", "log-text").Text(string(data))
	}
	return app.Div().Class("log-data").Body(renderJSONTree(root))
}

// levelClass groups levels for colour: the three above error look alike.
func levelClass(level wire.LogLevel) string {
	switch r := wire.LevelRank(level); {
	case r >= wire.LevelRank(wire.LevelError):
		return "error"
	case r == wire.LevelRank(wire.LevelWarning):
		return "warning"
	case r == wire.LevelRank(wire.LevelDebug):
		return "debug"
	}
	return "info"
}

// journalCount says how many entries there are, shown and dropped.
func journalCount(total, shown int, dropped uint64, noun string) string {
	s := countWords(total, noun)
	if shown != total {
		s += ", " + strconv.Itoa(shown) + " shown"
	}
	if dropped > 0 {
		s += "; " + strconv.FormatUint(dropped, 10) + " older " + choose(dropped == 1, "one", "ones") + " dropped"
	}
	return s
}

// countWords is "1 key", "2 keys".
func countWords(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// timeOfDay is the time of day of t, to the millisecond.
func timeOfDay(t time.Time) string { return t.Local().Format("15:04:05.000") }

func logKey(e wire.LogEntry) string { return strconv.FormatUint(e.N, 10) }

func logKeys(logs []wire.LogEntry) []string {
	out := make([]string, len(logs))
	for i, e := range logs {
		out[i] = logKey(e)
	}
	return out
}
