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

// shown is what shownTurns shows, in order, by id.
func shown(stored []wire.ChatTurn, live *wire.ChatTurn) []string {
	earlier, latest := shownTurns(stored, live)
	ids := turnIDs(earlier)
	if latest != nil {
		ids = append(ids, latest.ID)
	}
	return ids
}

func TestShownTurnsLiveReplacesStoredTurnOfSameID(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "b", N: 1, Text: "stored", Status: wire.TurnRunning}}
	live := &wire.ChatTurn{ID: "b", N: 1, Text: "live", Status: wire.TurnDone}
	earlier, latest := shownTurns(stored, live)
	if !slices.Equal(turnIDs(earlier), []string{"a"}) || latest.Text != "live" || latest.Status != wire.TurnDone {
		t.Fatalf("shown = %v, %+v", turnIDs(earlier), latest)
	}
	if stored[1].Text != "stored" {
		t.Fatal("the stored turns were changed")
	}
}

func TestShownTurnsEarlierAreTheStoredTurnsThemselves(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "b", N: 1}}
	earlier, _ := shownTurns(stored, &wire.ChatTurn{ID: "c", N: 2})
	if len(earlier) != 2 || &earlier[0] != &stored[0] {
		t.Fatal("the earlier turns are a copy: every render would compare them whole")
	}
}

func TestShownTurnsAppendsANewLiveTurn(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "b", N: 1}}
	if got := shown(stored, &wire.ChatTurn{ID: "c", N: 2}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("shown = %v", got)
	}
}

func TestShownTurnsRetriedTurnTakesThePlaceOfTheOldOne(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a", N: 0}, {ID: "failed", N: 1, Status: wire.TurnFailed}}
	if got := shown(stored, &wire.ChatTurn{ID: "again", N: 1, Status: wire.TurnRunning}); !slices.Equal(got, []string{"a", "again"}) {
		t.Fatalf("shown = %v", got)
	}
}

func TestShownTurnsWithoutLiveTurnEndWithTheLastStored(t *testing.T) {
	stored := []wire.ChatTurn{{ID: "a"}, {ID: "b"}}
	if got := shown(stored, nil); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("shown = %v", got)
	}
	if got := shown(nil, &wire.ChatTurn{ID: "x"}); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("shown before the read = %v", got)
	}
	if got := shown(nil, nil); len(got) != 0 {
		t.Fatalf("shown of nothing = %v", got)
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
