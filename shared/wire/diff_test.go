package wire

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomServers makes a varied list of servers: some of the ids s0..s5, in
// that order, each with random subsets of a pool of items in random orders
// and with random contents.
func randomServers(r *rand.Rand) []Server {
	var out []Server
	for i := range 6 {
		if r.IntN(3) == 0 {
			continue
		}
		s := Server{ID: fmt.Sprintf("s%d", i), Name: "server", State: []ServerState{StateReady, StateFailed, StateConnecting}[r.IntN(3)]}
		if r.IntN(2) == 0 {
			s.Error = "boom"
		}
		for _, k := range r.Perm(8)[:r.IntN(9)] {
			s.Tools = append(s.Tools, Tool{Name: fmt.Sprintf("t%d", k), Description: []string{"", "a", "b"}[r.IntN(3)]})
		}
		for _, k := range r.Perm(4)[:r.IntN(5)] {
			s.Prompts = append(s.Prompts, Prompt{Name: fmt.Sprintf("p%d", k), Title: []string{"", "x"}[r.IntN(2)]})
		}
		for _, k := range r.Perm(5)[:r.IntN(6)] {
			s.Resources = append(s.Resources, Resource{URI: fmt.Sprintf("r://%d", k), Name: "r", Size: int64(r.IntN(3))})
		}
		for _, k := range r.Perm(3)[:r.IntN(4)] {
			s.Templates = append(s.Templates, ResourceTemplate{URITemplate: fmt.Sprintf("r://{x%d}", k), Name: "t"})
		}
		for _, k := range r.Perm(3)[:r.IntN(4)] {
			s.Subscriptions = append(s.Subscriptions, Subscription{URI: fmt.Sprintf("r://%d", k), Updated: []string{"", "2026"}[r.IntN(2)]})
		}
		out = append(out, s)
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyingTheDiffOfTwoStatesYieldsTheSecond(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 500 {
		a, b := randomServers(r), randomServers(r)
		snap := Snapshot{Servers: a}
		before := jsonOf(t, snap)
		earlier := snap // a view holding the first state
		changes := Diff(a, b)
		if err := snap.ApplyAll(changes); err != nil {
			t.Fatalf("case %d: apply: %v", n, err)
		}
		if got, want := jsonOf(t, snap.Servers), jsonOf(t, b); got != want {
			t.Fatalf("case %d:\nfrom %s\nto   %s\ngot  %s\nchanges %s", n, jsonOf(t, a), want, got, jsonOf(t, changes))
		}
		if jsonOf(t, earlier) != before {
			t.Fatalf("case %d: applying changed an earlier copy of the snapshot", n)
		}
		// Change by change gives the same.
		one := Snapshot{Servers: a}
		for _, c := range changes {
			if err := one.Apply(c); err != nil {
				t.Fatal(err)
			}
		}
		if jsonOf(t, one.Servers) != jsonOf(t, b) {
			t.Fatalf("case %d: change by change differs", n)
		}
		if again := Diff(b, snap.Servers); len(again) != 0 {
			t.Fatalf("case %d: the diff of equal states is %s", n, jsonOf(t, again))
		}
	}
}

func TestDiffIsProportionalToTheChange(t *testing.T) {
	var tools []Tool
	for i := range 1000 {
		tools = append(tools, Tool{Name: fmt.Sprintf("t%04d", i)})
	}
	old := Server{ID: "s", State: StateReady, Tools: tools}
	cur := old
	cur.Tools = append([]Tool(nil), tools...)
	cur.Tools[500].Description = "changed"
	if ch := DiffServer(old, cur); len(ch) != 1 || ch[0].Key != "t0500" || ch[0].At != nil {
		t.Errorf("one tool changed: %s", jsonOf(t, ch))
	}
	// A tool inserted in the middle of a sorted list is one put at its index.
	cur.Tools = append(append(append([]Tool(nil), tools[:500]...), Tool{Name: "t0499b"}), tools[500:]...)
	ch := DiffServer(old, cur)
	if len(ch) != 1 || ch[0].At == nil || *ch[0].At != 500 {
		t.Fatalf("one tool inserted: %s", jsonOf(t, ch))
	}
	snap := Snapshot{Servers: []Server{old}}
	if err := snap.ApplyAll(ch); err != nil || jsonOf(t, snap.Servers[0]) != jsonOf(t, cur) {
		t.Errorf("inserted at the wrong place: %v", err)
	}
	if ch := DiffServer(old, old); len(ch) != 0 {
		t.Errorf("no change: %s", jsonOf(t, ch))
	}
}

func TestDedupedKeepsTheFirstOfEachKey(t *testing.T) {
	s := Server{Tools: []Tool{{Name: "a", Title: "1"}, {Name: "b"}, {Name: "a", Title: "2"}}, Subscriptions: []Subscription{{URI: "x"}, {URI: "x"}}}
	d := s.Deduped()
	if len(d.Tools) != 2 || d.Tools[0].Title != "1" || len(d.Subscriptions) != 1 || len(s.Tools) != 3 {
		t.Errorf("deduped %+v (from %+v)", d, s)
	}
}

func TestDedupedKeepsAListWithoutRepeats(t *testing.T) {
	s := Server{Tools: []Tool{{Name: "a"}, {Name: "b"}}}
	if d := s.Deduped(); &d.Tools[0] != &s.Tools[0] || len(d.Tools) != 2 {
		t.Errorf("a list without repeats was copied or changed: %+v", d.Tools)
	}
}
