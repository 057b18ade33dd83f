package web

import (
	"testing"
	"time"
)

// TestMsgBudget: a burst at once, then the rate, and one more stops.
func TestMsgBudget(t *testing.T) {
	var b msgBudget
	now := time.Unix(1000, 0)
	for i := range 200 {
		if !b.spend(now, 200, 50) {
			t.Fatalf("message %d of the first burst refused", i+1)
		}
	}
	if b.spend(now, 200, 50) {
		t.Fatal("the 201st message at once passed")
	}
	// A second later, 50 more have grown back, less the one the refused
	// message took.
	now = now.Add(time.Second)
	n := 0
	for b.spend(now, 200, 50) {
		n++
	}
	if n != 49 {
		t.Errorf("%d messages passed a second after the burst, want 49", n)
	}
	// Never more than the burst, however long the view was quiet.
	now = now.Add(time.Hour)
	n = 0
	for b.spend(now, 200, 50) {
		n++
	}
	if n != 200 {
		t.Errorf("%d messages passed after an hour, want 200", n)
	}
}
