package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func chatChange(t *testing.T, kind wire.ChangeKind, chat string, v any) wire.Change {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return wire.Change{Kind: kind, Key: chat, Value: b}
}

func TestChatChangesGrowTheLatestTurn(t *testing.T) {
	var s wire.Snapshot
	turn := wire.ChatTurn{ID: "t1", Chat: "c1", Text: "hi", Status: wire.TurnRunning}
	card := wire.ChatToolCall{ID: "call", Name: "s__echo", State: wire.ToolRunning}
	if err := s.ApplyAll([]wire.Change{
		chatChange(t, wire.KindChat, "c1", wire.Chat{ID: "c1", Title: "hi", Running: true}),
		chatChange(t, wire.KindChatTurn, "c1", turn),
		chatChange(t, wire.KindChatText, "c1", wire.ChatText{Turn: "t1", Index: 0, Kind: wire.PartText, Text: "Hel"}),
	}); err != nil {
		t.Fatal(err)
	}
	before := s // a view taken now keeps what it saw
	for _, c := range []wire.Change{
		chatChange(t, wire.KindChatText, "c1", wire.ChatText{Turn: "t1", Index: 0, Kind: wire.PartText, Text: "lo"}),
		chatChange(t, wire.KindChatPart, "c1", wire.ChatPartChange{Turn: "t1", Index: 1, Part: wire.ChatPart{Kind: wire.PartTool, Tool: &card}}),
		chatChange(t, wire.KindChatEnd, "c1", wire.ChatTurnEnd{Turn: "t1", Status: wire.TurnDone, Usage: wire.ChatUsage{In: 3, Out: 2}}),
	} {
		if err := s.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	got := s.ChatTurns[0]
	if got.Parts[0].Text != "Hello" || got.Parts[1].Tool.ID != "call" || got.Status != wire.TurnDone || got.Usage.Out != 2 {
		t.Errorf("turn: %+v", got)
	}
	if b := before.ChatTurns[0]; len(b.Parts) != 1 || b.Parts[0].Text != "Hel" || b.Status != wire.TurnRunning {
		t.Errorf("an earlier view changed: %+v", b)
	}
	if err := s.Apply(wire.Change{Kind: wire.KindChat, Key: "c1", Remove: true}); err != nil || len(s.Chats) != 0 || len(s.ChatTurns) != 0 {
		t.Errorf("removed: %v, %d chats, %d turns", err, len(s.Chats), len(s.ChatTurns))
	}
}

func TestChatChangesOfAnotherTurnAreRefused(t *testing.T) {
	var s wire.Snapshot
	if err := s.Apply(chatChange(t, wire.KindChatTurn, "c1", wire.ChatTurn{ID: "t2", Chat: "c1"})); err != nil {
		t.Fatal(err)
	}
	for _, c := range []wire.Change{
		chatChange(t, wire.KindChatText, "c1", wire.ChatText{Turn: "t1", Index: 0, Kind: wire.PartText, Text: "x"}),
		chatChange(t, wire.KindChatText, "c1", wire.ChatText{Turn: "t2", Index: 5, Kind: wire.PartText, Text: "x"}),
		chatChange(t, wire.KindChatPart, "c9", wire.ChatPartChange{Turn: "t2", Index: 0}),
	} {
		if err := s.Apply(c); err == nil {
			t.Errorf("%s %s applied", c.Kind, c.Value)
		}
	}
}
