package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestLogsShowServerDataAsTextAndTrees(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	obj, _ := json.Marshal(map[string]any{"html": hostile, "nested": map[string]any{"n": 1}})
	text, _ := json.Marshal("plain " + hostile)
	tab := &LogsTab{ServerID: "s1", Logging: &wire.Logging{Level: wire.LevelInfo}, Dropped: 3, Logs: []wire.LogEntry{
		{N: 4, Time: at, Level: wire.LevelInfo, Logger: "db " + hostile, Data: text},
		{N: 5, Time: at, Level: wire.LevelError, Data: obj},
	}}
	html := rendered(t, tab)
	for _, want := range []string{`id="log-level"`, `id="log-filter"`, `id="logs-clear"`, "2 messages; 3 older ones dropped",
		"plain &lt;img", "db &lt;img", `class="json-tree code-block"`, "{2 keys}", "&#34;&lt;img", `data-level="error"`} {
		if !strings.Contains(html, want) {
			t.Errorf("logs lack %s", want)
		}
	}

	tab = &LogsTab{ServerID: "s1"}
	html = rendered(t, tab)
	if strings.Contains(html, `id="log-level"`) || !strings.Contains(html, "does not declare logging") {
		t.Errorf("a server without logging offers a level:\n%s", html)
	}
}

func TestActivityShowsKindsInWords(t *testing.T) {
	html := rendered(t, &ActivityTab{ServerID: "s1", Activity: []wire.Activity{
		{N: 1, Time: time.Now(), Kind: wire.ActivityToolsChanged, Text: "The list of tools changed."},
		{N: 2, Time: time.Now(), Kind: wire.ActivityResourceUpdated, Text: "Resource updated: " + hostile},
	}})
	for _, want := range []string{"Tools changed", "Resource updated: &lt;img", `data-kind="tools_changed"`, "2 notifications"} {
		if !strings.Contains(html, want) {
			t.Errorf("activity lacks %s", want)
		}
	}
}

func TestDetailHasLogsAndActivityTabs(t *testing.T) {
	s := servers()[0]
	html := rendered(t, &ServerDetail{Server: s, Journal: wire.Journal{Server: s.ID, Logs: []wire.LogEntry{{N: 1, Level: wire.LevelInfo}}}})
	for _, want := range []string{`id="tab-logs"`, `id="tab-activity"`, `id="panel-logs"`, `id="panel-activity"`, `id="roots-excluded"`} {
		if !strings.Contains(html, want) {
			t.Errorf("detail lacks %s", want)
		}
	}
}
