package web

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

func types(events []hostEvent) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev["type"].(string))
	}
	return out
}

func TestHostHearsEachChangeOnceAndNothingButIDsNamesStatesAndCounts(t *testing.T) {
	var r hostReport
	if got := types(r.next(store.View{Status: store.StatusConnecting})); len(got) != 0 {
		t.Fatalf("before the snapshot the host heard %v", got)
	}
	live := store.View{Status: store.StatusLive, Loaded: true, Snapshot: wire.Snapshot{
		Servers: servers(),
		Asks:    []wire.Ask{{ID: "a1", Server: "s1", State: wire.AskPending}, {ID: "a2", Server: "s1", State: wire.AskWaiting}},
	}}
	got := r.next(live)
	if !slices.Equal(types(got), []string{msgServers, msgQuestions}) {
		t.Fatalf("first snapshot: %v", types(got))
	}
	list := got[0]["servers"].([]any)
	first := list[0].(map[string]any)
	if len(list) != 2 || len(first) != 3 || first["id"] != "s1" || first["name"] != "demo" || first["state"] != "ready" {
		t.Errorf("servers event %v: want id, name and state only", got[0])
	}
	if got[1]["count"] != 1 {
		t.Errorf("questions %v, want 1 pending", got[1])
	}
	if again := r.next(live); len(again) != 0 {
		t.Errorf("nothing changed, the host heard %v", types(again))
	}

	changed := live
	changed.Snapshot.Servers = servers()
	changed.Snapshot.Servers[0].State = wire.StateFailed
	changed.Snapshot.Servers[0].Tools = nil // not the host's business: no event of its own
	if got := types(r.next(changed)); !slices.Equal(got, []string{msgServers}) {
		t.Errorf("a state change: %v", got)
	}
	changed.Snapshot.Servers[1].Tools = []wire.Tool{{Name: "new"}}
	if got := r.next(changed); len(got) != 0 {
		t.Errorf("a tool change told the host %v", types(got))
	}

	out := store.View{Status: store.StatusSignedOut}
	if got := types(r.next(out)); !slices.Equal(got, []string{msgSignedOut}) {
		t.Errorf("signing out: %v", got)
	}
	if got := r.next(out); len(got) != 0 {
		t.Errorf("still signed out, the host heard %v", types(got))
	}
	r.next(live)
	if got := types(r.next(out)); !slices.Equal(got, []string{msgSignedOut}) {
		t.Errorf("signing out a second time: %v", got)
	}
}

func TestThemeKeepsOnlyAllowedPropertiesWithSafeValues(t *testing.T) {
	kept, dropped := themeOf(map[string]string{
		"--sb-accent":       "#0a7",
		"--sb-bg":           "rgb(10 20 30 / 50%)",
		"--sb-radius":       "12px",
		"--sb-font":         `"Inter", system-ui, sans-serif`,
		"--sb-surface":      "url(https://evil.example/x.png)",
		"--sb-text":         "red; background: url(x)",
		"--sb-radius-small": "calc(1px + 1px)",
		"--sb-mono":         "x{}",
		"color":             "red",
		"--sb-border":       "image-set(\"x.png\" 1x)",
	})
	want := map[string]string{"--sb-accent": "#0a7", "--sb-bg": "rgb(10 20 30 / 50%)", "--sb-radius": "12px", "--sb-font": `"Inter", system-ui, sans-serif`}
	if len(kept) != len(want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
	for k, v := range want {
		if kept[k] != v {
			t.Errorf("%s = %q, want %q", k, kept[k], v)
		}
	}
	if len(dropped) != 6 {
		t.Errorf("dropped %v, want the six bad ones", dropped)
	}
	for in, want := range map[string]string{"dark": schemeDark, "light": schemeLight, "auto": schemeAuto, "DARK": schemeAuto, "": schemeAuto} {
		if got := schemeOf(in); got != want {
			t.Errorf("scheme %q: %q, want %q", in, got, want)
		}
	}
}

func TestEmbedViews(t *testing.T) {
	for in, want := range map[string]string{"questions": EmbedViewQuestions, "servers": EmbedViewServers, "server": EmbedViewServer, "": EmbedViewDashboard, "admin": EmbedViewDashboard} {
		if got := embedView(in); got != want {
			t.Errorf("view %q: %q, want %q", in, got, want)
		}
	}
}
