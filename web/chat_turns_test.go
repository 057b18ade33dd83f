package web

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func turnIDs(turns []wire.ChatTurn) []string {
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.ID
	}
	return ids
}

func TestMergeTurnsLiveReplacesStoredTurnOfSameID(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "b", N: 1, Text: "stored", Status: wire.TurnRunning}}
	live := &wire.ChatTurn{ID: "b", N: 1, Text: "live", Status: wire.TurnDone}
	got := mergeTurns(stored, live)
	if !slices.Equal(turnIDs(got), []string{"a", "b"}) || got[1].Text != "live" || got[1].Status != wire.TurnDone {
		t.Fatalf("merged = %+v", got)
	}
	if stored[1].Text != "stored" {
		t.Fatal("the stored turns were changed")
	}
}

func TestMergeTurnsAppendsANewLiveTurn(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "b", N: 1}}
	got := mergeTurns(stored, &wire.ChatTurn{ID: "c", N: 2})
	if !slices.Equal(turnIDs(got), []string{"a", "b", "c"}) {
		t.Fatalf("merged = %v", turnIDs(got))
	}
}

func TestMergeTurnsRetriedTurnTakesThePlaceOfTheOldOne(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "failed", N: 1, Status: wire.TurnFailed}}
	got := mergeTurns(stored, &wire.ChatTurn{ID: "again", N: 1, Status: wire.TurnRunning})
	if !slices.Equal(turnIDs(got), []string{"a", "again"}) {
		t.Fatalf("merged = %v", turnIDs(got))
	}
}

func TestMergeTurnsWithoutLiveTurnIsTheStoredTurns(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a"}}
	if got := mergeTurns(stored, nil); !slices.Equal(turnIDs(got), []string{"a"}) {
		t.Fatalf("merged = %v", turnIDs(got))
	}
	if got := mergeTurns(nil, &wire.ChatTurn{ID: "x"}); !slices.Equal(turnIDs(got), []string{"x"}) {
		t.Fatalf("merged before the read = %v", turnIDs(got))
	}
}

func TestChatReadKeyChangesWithTurnsAndLatestTurn(t *testing.T) {
	c := wire.Chat{ID: "c", Turns: 2}
	live := &wire.ChatTurn{ID: "t2"}
	base := chatReadKey(c, live)
	if chatReadKey(c, &wire.ChatTurn{ID: "t2", Text: "more"}) != base {
		t.Error("the key changed with the turn's text; a stream would read on every delta")
	}
	for name, key := range map[string]string{
		"more turns":         chatReadKey(wire.Chat{ID: "c", Turns: 3}, live),
		"a new latest turn":  chatReadKey(c, &wire.ChatTurn{ID: "t3"}),
		"the turn went away": chatReadKey(c, nil),
	} {
		if key == base {
			t.Errorf("%s: the key did not change", name)
		}
	}
}

func TestLiveTurnAndTurnCalls(t *testing.T) {
	turns := []wire.ChatTurn{{ID: "t1", Chat: "a"}, {ID: "t2", Chat: "b", Parts: []wire.ChatPart{
		{Kind: wire.PartText, Text: "x"},
		{Kind: wire.PartTool, Tool: &wire.ChatToolCall{ID: "call1"}},
		{Kind: wire.PartTool, Tool: &wire.ChatToolCall{ID: "call2"}},
	}}}
	if lt := liveTurn(turns, "b"); lt == nil || lt.ID != "t2" {
		t.Fatalf("liveTurn(b) = %v", lt)
	}
	if lt := liveTurn(turns, "c"); lt != nil {
		t.Fatalf("liveTurn(c) = %v", lt)
	}
	if got := turnCalls(turns[1]); !slices.Equal(got, []string{"call1", "call2"}) {
		t.Fatalf("turnCalls = %v", got)
	}
}
