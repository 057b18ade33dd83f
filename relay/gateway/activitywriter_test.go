package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/gateway"
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
	l := &gateway.Log{Store: openStore(t)}
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l.Finish(ctx, "", gateway.CallRecord{User: "ann", Agent: "bot", KeyID: "k", Server: "s1", Name: fmt.Sprint(i), Start: time.Now(), Outcome: gateway.OutcomeOK})
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
	l.Finish(ctx, "", gateway.CallRecord{User: "ann", Agent: "bot", Server: "s1", Name: "last", Start: time.Now(), Outcome: gateway.OutcomeOK})
	l.Flush(ctx)
	if got, _ := l.Activity(ctx, "ann", wire.ListActivityArgs{}); len(got) != n+1 || got[0].Tool != "last" {
		t.Errorf("after a flush the log lists %d calls, want %d with the last first", len(got), n+1)
	}
}
