package activity_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/activity"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/disktest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Calls that end while the disk is full are shown, kept in memory and
// written once space returns; past the bound the oldest are counted lost.
func TestCallsEndedOnAFullDiskAreWrittenWhenSpaceReturns(t *testing.T) {
	disk := disktest.Mount(t, "2m")
	ctx := context.Background()
	st := disk.OpenStore()
	disk.FillUnder(st)
	l := &activity.Log{Store: st}
	const overflow = 5
	total := 4*store.MaxAgentCalls + overflow
	var shown atomic.Int64
	all := make(chan struct{})
	for i := range total {
		l.Append("ann", wire.AgentCall{Agent: "bot", Server: "s1", Tool: fmt.Sprint("t", i), Start: time.Now(), Outcome: wire.OutcomeOK},
			func(wire.AgentCall) {
				if shown.Add(1) == int64(total) {
					close(all)
				}
			})
	}
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d of %d calls shown", shown.Load(), total)
	}
	l.Flush(ctx)
	if owed, lost := l.Owed(); owed != total-overflow || lost != overflow {
		t.Fatalf("on a full disk: %d owed and %d lost, want %d and %d", owed, lost, total-overflow, overflow)
	}
	disk.Free()
	l.Flush(ctx)
	if owed, lost := l.Owed(); owed != 0 || lost != overflow {
		t.Fatalf("once space returned: %d owed and %d lost, want 0 and %d", owed, lost, overflow)
	}
	got, err := l.Activity(ctx, "ann", wire.ListActivityArgs{})
	if err != nil || len(got) != store.MaxAgentCalls {
		t.Fatalf("listed %d calls (%v), want the latest %d", len(got), err, store.MaxAgentCalls)
	}
	var latest int
	fmt.Sscanf(got[0].Tool, "t%d", &latest)
	if latest < total-1-overflow {
		t.Errorf("the latest call listed is %s, want one of the last %d", got[0].Tool, overflow+1)
	}
}
