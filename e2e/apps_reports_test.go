package e2e

import (
	"encoding/json"
	"testing"
	"time"

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

// checkFlood fails the test when more of the flood view's calls ran since
// start than a proxy passing rate messages a second lets through, and logs
// how many did.
func checkFlood(t testing.TB, fx *appsfixture.Server, start time.Time, rate int) {
	t.Helper()
	r, err := fx.WaitReport(appsfixture.Flood, floodTimeout)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	ticks, most := fx.Ticks(), rate*(int(elapsed.Seconds())+2)
	if ticks > most {
		t.Errorf("%d of %d flooded calls ran in %v, want at most %d", ticks, appsfixture.FloodMessages, elapsed, most)
	}
	t.Logf("%d of %d flooded calls ran in %v; the view says %s", ticks, appsfixture.FloodMessages, elapsed, r.Outcome)
}

// floodTimeout bounds the wait for the flood view's report: each of its
// 20,000 messages crosses from the view's process to the proxy's, which takes
// a while.
const floodTimeout = 90 * time.Second
