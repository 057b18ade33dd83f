package web

import (
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCheckAgentKey(t *testing.T) {
	for _, c := range []struct {
		name, tools, ttl string
		chosen           bool
		servers          []string
		want             wire.CreateAgentKeyArgs
		problem          bool
	}{
		{name: " bot ", ttl: keyNeverExpires, want: wire.CreateAgentKeyArgs{Name: "bot"}},
		{name: "bot", ttl: "24h", chosen: true, servers: []string{"s1"}, tools: "s1__a, b\nc",
			want: wire.CreateAgentKeyArgs{Name: "bot", Servers: []string{"s1"}, Tools: []string{"s1__a", "b", "c"}, TTL: 24 * time.Hour}},
		{name: "", ttl: keyNeverExpires, problem: true},
		{name: "bot", ttl: keyNeverExpires, chosen: true, problem: true},
		{name: "bot", ttl: "soon", problem: true},
	} {
		got, problem := checkAgentKey(c.name, c.chosen, c.servers, c.tools, c.ttl)
		if (problem != "") != c.problem {
			t.Errorf("%+v: problem %q", c, problem)
			continue
		}
		if !c.problem && (got.Name != c.want.Name || !slices.Equal(got.Servers, c.want.Servers) || !slices.Equal(got.Tools, c.want.Tools) || got.TTL != c.want.TTL) {
			t.Errorf("%+v: args %+v, want %+v", c, got, c.want)
		}
	}
}

func TestMergeCallsAddsLiveCallsOnceNewestFirst(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	loaded := []wire.AgentCall{{ID: "5", Agent: "a", Start: t0}, {ID: "3", Agent: "a", Start: t0}}
	live := []wire.AgentCall{{ID: "3", Agent: "a", Start: t0}, {ID: "7", Agent: "a", Start: t0.Add(time.Second)},
		{ID: "8", Agent: "b", Start: t0.Add(time.Second)}, {ID: "10", Agent: "a", Start: t0.Add(time.Second)},
		{ID: "running-1", Agent: "a", Start: t0.Add(time.Minute), Outcome: wire.OutcomeRunning}}
	var ids []string
	for _, c := range mergeCalls(loaded, live, wire.ListActivityArgs{Agent: "a"}) {
		ids = append(ids, c.ID)
	}
	if want := []string{"running-1", "10", "7", "5", "3"}; !slices.Equal(ids, want) {
		t.Errorf("merged = %v, want %v", ids, want)
	}
}

func TestKeyListShowsNamesAsText(t *testing.T) {
	p := &AgentsPage{keys: []wire.AgentKey{{ID: "k1", Name: hostile, Servers: []string{"s2"}, Created: time.Now()}}}
	html := rendered(t, p.renderKeys(servers()))
	if element(html, `data-key-id="k1"`, `data-state="active"`) == "" {
		t.Errorf("the key is not listed as active:\n%s", html)
	}
}
