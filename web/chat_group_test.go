package web

import (
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestChatGroupIsTheSelectedConversationWithItsCompareGroup(t *testing.T) {
	now := time.Now()
	chats := []wire.Chat{
		{ID: "solo", Created: now},
		{ID: "z", Group: "g", Model: "b-model", Created: now},
		{ID: "other", Group: "h", Created: now},
		{ID: "y", Group: "g", Model: "a-model", Created: now},
		{ID: "x", Group: "g", Model: "c-model", Created: now.Add(-time.Second)},
	}
	if got := chatIDs(chatGroup(chats, "z")); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Errorf("group of z = %v", got)
	}
	if got := chatIDs(chatGroup(chats, "y")); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Errorf("group of y = %v: the columns moved with the selection", got)
	}
	if got := chatIDs(chatGroup(chats, "solo")); !slices.Equal(got, []string{"solo"}) {
		t.Errorf("group of solo = %v", got)
	}
	if got := chatGroup(chats, "gone"); got != nil {
		t.Errorf("group of a missing conversation = %v", got)
	}
}

func TestSplitAsksKeepsTheShownConversationsAsksInline(t *testing.T) {
	asks := []wire.Ask{
		{ID: "1", Chat: "a", Call: "c1"},
		{ID: "2"},
		{ID: "3", Chat: "b", Call: "c2"},
		{ID: "4", Chat: "a", Call: "c3"},
	}
	inline, stack := splitAsks(asks, []string{"a"})
	if len(inline["a"]) != 2 || inline["a"][0].ID != "1" || inline["a"][1].ID != "4" {
		t.Errorf("inline = %v", inline)
	}
	if len(stack) != 2 || stack[0].ID != "2" || stack[1].ID != "3" {
		t.Errorf("stack = %v", stack)
	}
	if got := asksOfCalls(inline["a"], []string{"c3"}); len(got) != 1 || got[0].ID != "4" {
		t.Errorf("asks of c3 = %v", got)
	}
}
