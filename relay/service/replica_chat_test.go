package service

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A chat turn that runs on its person's owner stays running when another
// replica starts; once the owner is gone, the replica that takes the person
// marks it interrupted, as a relay that restarted does its own.
func TestAReplicaInterruptsOnlyTheTurnsOfThePeopleItTakes(t *testing.T) {
	dbURL := sharedStore(t)
	ctx := context.Background()
	const alice, bob = "alice", "bob"
	st, err := store.OpenTarget(ctx, dbURL, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	status := func(user string) wire.TurnStatus {
		t.Helper()
		turns, err := st.Turns(ctx, user, "c1")
		if err != nil || len(turns) != 1 {
			t.Fatalf("%s's turns: %+v, %v", user, turns, err)
		}
		return turns[0].Status
	}

	// A owns both, and a turn of each runs there (as far as the store
	// tells).
	a := startReplica(t, "A", dbURL)
	a.dashboard(t, alice).WaitUntil("A to own alice", func() bool { return a.owns(alice) })
	a.dashboard(t, bob).WaitUntil("A to own bob", func() bool { return a.owns(bob) })
	running := wire.ChatTurn{ID: "t1", Chat: "c1", Model: "m1", Text: "hello", Status: wire.TurnRunning, Started: time.Now().UTC()}
	for _, user := range []string{alice, bob} {
		if err := st.AddChat(ctx, user, wire.Chat{ID: "c1", Title: "hello", Model: "m1", Created: running.Started, Updated: running.Started}); err != nil {
			t.Fatal(err)
		}
		if err := st.PutTurn(ctx, user, running); err != nil {
			t.Fatal(err)
		}
	}

	b := startReplica(t, "B", dbURL)
	if got := status(alice); got != wire.TurnRunning {
		t.Errorf("after B started, the turn A runs is %s, want running", got)
	}

	// A goes; B takes alice: her turn ended with A, and says so. Bob, whom
	// nobody took yet, keeps his until someone does.
	a.stop()
	b.dashboard(t, alice).WaitUntil("B to own alice", func() bool { return b.owns(alice) })
	if got := status(alice); got != wire.TurnInterrupted {
		t.Errorf("once B took alice, her turn is %s, want interrupted", got)
	}
	if got := status(bob); got != wire.TurnRunning {
		t.Errorf("bob's turn, whom B did not take, is %s, want running", got)
	}
}
