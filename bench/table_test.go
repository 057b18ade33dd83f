package main

import (
	"strings"
	"testing"
	"time"
)

func TestPercentileIsTheNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {1, time.Millisecond}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
}

func TestRatioRowSaysWhetherTheTargetIsMet(t *testing.T) {
	met := ratioRow("x", 10*time.Millisecond, 20*time.Millisecond, "ref", 0.5)
	missed := ratioRow("x", 30*time.Millisecond, 20*time.Millisecond, "ref", 1.25)
	none := ratioRow("x", 30*time.Millisecond, 20*time.Millisecond, "ref", 0)
	if met.verdict != "met" || met.ratio != "0.50x" {
		t.Errorf("10 ms against 20 ms, target 0.5x: %+v", met)
	}
	if missed.verdict != "NOT met" || missed.ratio != "1.50x" {
		t.Errorf("30 ms against 20 ms, target 1.25x: %+v", missed)
	}
	if none.target != "" || none.verdict != "" {
		t.Errorf("a row without a target: %+v", none)
	}
}

func TestTableEscapesPipes(t *testing.T) {
	var b strings.Builder
	printTable(&b, []row{{figure: "a|b", switchboard: "1"}})
	if !strings.Contains(b.String(), `| a\|b | 1 |`) {
		t.Errorf("table:\n%s", b.String())
	}
}

// Failures of one kind count as one line of the soak's report, whatever
// session, port or server they name.
func TestFailureKindsCountAsOne(t *testing.T) {
	a := failureKind("the server is not connected: its last attempt failed (connection lost: failed to connect (session ID: U3HP7YQJSZ6BWSF2F3WZSK4ZNK): session not found)")
	b := failureKind("the server is not connected: its last attempt failed (connection lost: failed to connect (session ID: QPZCGSPO5O53AAHZJSKDXPNXH2): session not found)")
	c := failureKind("tool error: the server soak097 could not be connected (read tcp 127.0.0.1:34006->127.0.0.1:44573: read: connection reset by peer)")
	d := failureKind("tool error: the server soak081 could not be connected (read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer)")
	if a != b || c != d || a == c {
		t.Errorf("kinds: %q, %q, %q, %q", a, b, c, d)
	}
}
