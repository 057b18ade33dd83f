package web

import (
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestOrderChatsLatestUpdatedFirst(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 1, 1, 0, m, 0, 0, time.UTC) }
	chats := []wire.Chat{{ID: "old", Updated: at(1)}, {ID: "new", Updated: at(9)}, {ID: "b", Updated: at(5)}, {ID: "a", Updated: at(5)}}
	got := chatIDs(orderChats(chats))
	if !slices.Equal(got, []string{"new", "a", "b", "old"}) {
		t.Fatalf("order = %v", got)
	}
	if chats[0].ID != "old" {
		t.Fatal("orderChats changed its argument")
	}
}

func TestChatFilterMatchesTitlesAtOnceAndTheRelaysFindsForTheSameQuery(t *testing.T) {
	chats := []wire.Chat{{ID: "1", Title: "Weather in Paris"}, {ID: "2", Title: "Files"}, {ID: "3", Title: "Other"}}
	cases := []struct {
		name string
		f    chatFilter
		want []string
	}{
		{"no query", chatFilter{Query: "  "}, []string{"1", "2", "3"}},
		{"title, any case", chatFilter{Query: "paris"}, []string{"1"}},
		{"found by the relay", chatFilter{Query: "largest", Found: []string{"2"}, FoundFor: "largest"}, []string{"2"}},
		{"found for another query", chatFilter{Query: "larges", Found: []string{"2"}, FoundFor: "largest"}, nil},
		{"title and found", chatFilter{Query: "files", Found: []string{"3"}, FoundFor: "files"}, []string{"2", "3"}},
	}
	for _, c := range cases {
		if got := chatIDs(c.f.apply(chats)); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%s: kept %v, want %v", c.name, got, c.want)
		}
	}
}
