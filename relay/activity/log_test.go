package activity_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/activity"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestLogKeepsEveryCallEndedBeforeTheListing(t *testing.T) {
	ctx := context.Background()
	l := &activity.Log{Store: openStore(t)}
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l.Append("ann", wire.AgentCall{Agent: "bot", KeyID: "k", Server: "s1", Tool: fmt.Sprint(i), Start: time.Now(), Outcome: wire.OutcomeOK}, ignore)
		})
	}
	wg.Wait()
	got, err := l.Activity(ctx, "ann", wire.ListActivityArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("the log lists %d calls right after %d ended, want all", len(got), n)
	}
	ids, tools := map[string]bool{}, map[string]bool{}
	for _, c := range got {
		ids[c.ID], tools[c.Tool] = true, true
	}
	if len(ids) != n || len(tools) != n {
		t.Errorf("%d distinct ids and %d distinct calls among %d", len(ids), len(tools), n)
	}
	l.Append("ann", wire.AgentCall{Agent: "bot", Server: "s1", Tool: "last", Start: time.Now(), Outcome: wire.OutcomeOK}, ignore)
	l.Flush(ctx)
	if got, _ := l.Activity(ctx, "ann", wire.ListActivityArgs{}); len(got) != n+1 || got[0].Tool != "last" {
		t.Errorf("after a flush the log lists %d calls, want %d with the last first", len(got), n+1)
	}
}

// ignore is a shown callback for calls nobody shows.
func ignore(wire.AgentCall) {}

// Each call appended is shown once, as the store kept it (with the id it
// is listed under), after it was written.
func TestLogShowsEachCallAsKept(t *testing.T) {
	ctx := context.Background()
	l := &activity.Log{Store: openStore(t)}
	shown := make(chan wire.AgentCall, 1)
	start := time.Now().Truncate(time.Millisecond)
	l.Append("ann", wire.AgentCall{Agent: "bot", KeyID: "k", Server: "s1", Tool: "echo", Start: start, Duration: 12, Outcome: wire.OutcomeToolError, Asked: true},
		func(c wire.AgentCall) { shown <- c })
	var kept wire.AgentCall
	select {
	case kept = <-shown:
	case <-time.After(10 * time.Second):
		t.Fatal("the call appended was never shown")
	}
	listed, err := l.Activity(ctx, "ann", wire.ListActivityArgs{})
	if err != nil || len(listed) != 1 {
		t.Fatalf("listed %+v (%v)", listed, err)
	}
	if kept.ID == "" || kept.ID != listed[0].ID || kept.Tool != "echo" || kept.Duration != 12 || kept.Outcome != wire.OutcomeToolError || !kept.Asked || !kept.Start.Equal(start) {
		t.Errorf("shown %+v, listed %+v", kept, listed[0])
	}
}
