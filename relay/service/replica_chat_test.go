package service

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
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

// The person's chat runs on their owner, B, and streams to their dashboard
// on A, which carries its ops and the turn's changes through B.
func TestAChatTurnStreamsThroughAnotherReplica(t *testing.T) {
	dbURL := sharedStore(t)
	model := modelfixture.Start(t, modelfixture.Options{Replies: []modelfixture.Reply{modelfixture.Text("Hello through B.")}})
	withModel := func(c *Config) {
		c.Models = []models.Spec{{Name: "m1", Provider: llm.OpenAI, URL: model.OpenAIURL(), Model: "m1"}}
	}
	const alice = "alice"
	a, b := startReplica(t, "A", dbURL, withModel), startReplica(t, "B", dbURL, withModel)
	b.dashboard(t, alice).WaitUntil("B to own alice", func() bool { return b.owns(alice) })

	dash := a.dashboard(t, alice)
	var created wire.CreateChatResult
	if err := dash.Call(wire.OpCreateChat, wire.CreateChatArgs{Models: []string{"m1"}}, &created); err != nil || len(created.Chats) != 1 {
		t.Fatalf("create a chat on A: %+v, %v", created, err)
	}
	chat := created.Chats[0].ID
	if err := dash.Call(wire.OpSendChat, wire.SendChatArgs{Chat: chat, Text: "Hi."}, &struct{}{}); err != nil {
		t.Fatalf("send on A: %v", err)
	}
	var turn wire.ChatTurn
	dash.WaitUntil("the turn to end on A's dashboard", func() bool {
		var ok bool
		turn, ok = dash.Turn(chat)
		return ok && turn.Status != wire.TurnRunning
	})
	if turn.Status != wire.TurnDone || len(turn.Parts) == 0 || turn.Parts[0].Text != "Hello through B." {
		t.Errorf("the turn on A's dashboard: %s %+v", turn.Status, turn.Parts)
	}
	if !b.owns(alice) || a.owns(alice) {
		t.Errorf("owned by A %v, B %v; want B throughout", a.owns(alice), b.owns(alice))
	}
}
