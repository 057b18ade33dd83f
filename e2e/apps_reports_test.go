package e2e

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/appsfixture"
)

// probeResult is one thing a hostile view tried: what it got, or the error.
type probeResult struct {
	OK    bool   `json:"ok"`
	Value string `json:"value"`
	Error string `json:"error"`
}

// fetchResult is what a fetching view got.
type fetchResult struct {
	OK         bool     `json:"ok"`
	Status     int      `json:"status"`
	Body       string   `json:"body"`
	Error      string   `json:"error"`
	Violations []string `json:"violations"`
}

// probes waits for the report of attack and returns what it tried, by name.
func probes(t testing.TB, fx *appsfixture.Server, attack string) map[string]probeResult {
	t.Helper()
	var out map[string]probeResult
	outcome(t, fx, attack, &out)
	return out
}

// fetchOutcome waits for the report of a fetching view.
func fetchOutcome(t testing.TB, fx *appsfixture.Server, attack string) fetchResult {
	t.Helper()
	var out fetchResult
	outcome(t, fx, attack, &out)
	return out
}

// outcome waits for the report of attack and decodes its outcome into v.
func outcome(t testing.TB, fx *appsfixture.Server, attack string, v any) {
	t.Helper()
	r, err := fx.WaitReport(attack, waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.Outcome, v); err != nil {
		t.Fatalf("the report of %s: %v: %s", attack, err, r.Outcome)
	}
}

// checkNavigation fails the test when the navigating view could move top or
// its parent, or open a window.
func checkNavigation(t testing.TB, tried map[string]probeResult) {
	t.Helper()
	for _, name := range []string{"top", "parent"} {
		if p, ok := tried[name]; !ok || p.OK {
			t.Errorf("the view assigned %s.location: %+v", name, p)
		}
	}
	if p := tried["open"]; p.OK && p.Value != "refused" {
		t.Errorf("the view opened a window: %+v", p)
	}
}
