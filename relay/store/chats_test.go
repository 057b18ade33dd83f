package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// at is a time of the tests, to the millisecond the store keeps.
func at(minute int) time.Time { return time.Date(2030, 1, 2, 3, minute, 4, 5e6, time.UTC) }

func testChat(id string, updated int) wire.Chat {
	return wire.Chat{ID: id, Title: "title " + id, Model: "m1", Created: at(0), Updated: at(updated)}
}

func testTurn(chat, id string, n int, status wire.TurnStatus) wire.ChatTurn {
	return wire.ChatTurn{ID: id, Chat: chat, N: n, Model: "m1", Text: "message " + id, Status: status, Started: at(n)}
}

func chatIDs(cs []wire.Chat) []string {
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestChatRoundTripsAndListsLatestFirst(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	full := wire.Chat{ID: "c1", Title: "Budget", Model: "m1", Group: "g1", Servers: []string{"s1", "s2"},
		Tools: []wire.ToolRef{{Server: "s1", Tool: "read"}}, Always: []wire.ToolRef{{Server: "s2", Tool: "write"}},
		Created: at(1).In(time.FixedZone("x", 3600)).Add(123 * time.Microsecond), Updated: at(1), Turns: 3, Running: true}
	must(t, s.AddChat(ctx, "ann", full))
	must(t, s.AddChat(ctx, "ann", testChat("c2", 2)))

	got, err := s.Chat(ctx, "ann", "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := full
	want.Created, want.Running = at(1), false
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Chat = %+v\nwant %+v", got, want)
	}
	list, err := s.Chats(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if ids := chatIDs(list); !slices.Equal(ids, []string{"c2", "c1"}) {
		t.Errorf("Chats = %v, want c2 (latest) then c1", ids)
	}

	// PutChat replaces the summary, keeps the creation time, and moves
	// the conversation up.
	put := wire.Chat{ID: "c1", Title: "Budget 2", Model: "m2", Servers: []string{"s3"}, Turns: 4, Created: at(30), Updated: at(9)}
	must(t, s.PutChat(ctx, "ann", put))
	got, err = s.Chat(ctx, "ann", "c1")
	if err != nil {
		t.Fatal(err)
	}
	want = put
	want.Created = at(1)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Chat after PutChat = %+v\nwant %+v", got, want)
	}
	if list, _ := s.Chats(ctx, "ann"); !slices.Equal(chatIDs(list), []string{"c1", "c2"}) {
		t.Errorf("Chats after PutChat = %v, want c1 first", chatIDs(list))
	}

	if err := s.AddChat(ctx, "ann", testChat("c1", 5)); !errors.Is(err, store.ErrChatTaken) {
		t.Errorf("AddChat of a taken id: %v, want ErrChatTaken", err)
	}
	if err := s.PutChat(ctx, "ann", testChat("c9", 5)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutChat of a missing conversation: %v, want ErrNotFound", err)
	}
	must(t, s.DeleteChat(ctx, "ann", "c2"))
	if _, err := s.Chat(ctx, "ann", "c2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Chat after DeleteChat: %v, want ErrNotFound", err)
	}
	if err := s.DeleteChat(ctx, "ann", "c2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteChat again: %v, want ErrNotFound", err)
	}
}

func TestChatsAreIsolatedPerUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.AddChat(ctx, "ann", wire.Chat{ID: "c1", Title: "ann's secret plan", Model: "m1"}))
	must(t, s.PutTurn(ctx, "ann", testTurn("c1", "t1", 0, wire.TurnDone)))

	if _, err := s.Chat(ctx, "bob", "c1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob reads ann's conversation: %v", err)
	}
	if list, err := s.Chats(ctx, "bob"); err != nil || len(list) != 0 {
		t.Errorf("bob's list = %v, %v; want empty", chatIDs(list), err)
	}
	if _, err := s.Turns(ctx, "bob", "c1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob reads ann's turns: %v", err)
	}
	if err := s.PutChat(ctx, "bob", wire.Chat{ID: "c1", Title: "mine"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob puts ann's conversation: %v", err)
	}
	if err := s.PutTurn(ctx, "bob", testTurn("c1", "t2", 1, wire.TurnDone)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob puts a turn in ann's conversation: %v", err)
	}
	if err := s.DeleteTurnsFrom(ctx, "bob", "c1", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob deletes ann's turns: %v", err)
	}
	if err := s.DeleteChat(ctx, "bob", "c1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob deletes ann's conversation: %v", err)
	}
	for _, q := range []string{"", "secret", "message"} {
		if ids, err := s.SearchChats(ctx, "bob", q); err != nil || len(ids) != 0 {
			t.Errorf("bob's search for %q = %v, %v; want nothing", q, ids, err)
		}
	}

	// The same id is another conversation for bob.
	must(t, s.AddChat(ctx, "bob", wire.Chat{ID: "c1", Title: "bob's", Model: "m2"}))
	must(t, s.DeleteChat(ctx, "bob", "c1"))
	got, err := s.Chat(ctx, "ann", "c1")
	if err != nil || got.Title != "ann's secret plan" {
		t.Errorf("ann's conversation after bob's went: %+v, %v", got, err)
	}
	if turns, err := s.Turns(ctx, "ann", "c1"); err != nil || len(turns) != 1 {
		t.Errorf("ann's turns after bob's conversation went: %d, %v", len(turns), err)
	}
}

func TestTurnsRoundTripInOrderAndDeleteFrom(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.AddChat(ctx, "ann", testChat("c1", 0)))
	must(t, s.AddChat(ctx, "ann", testChat("c2", 0)))
	if turns, err := s.Turns(ctx, "ann", "c1"); err != nil || turns == nil || len(turns) != 0 {
		t.Errorf("Turns of a conversation without any = %v, %v; want empty", turns, err)
	}

	rich := wire.ChatTurn{ID: "t1", Chat: "c1", N: 1, Model: "m1", Text: "look at this",
		Attachments: []wire.ChatAttachment{{Kind: wire.AttachResource, Server: "s1", URI: "file:///a.txt", Text: "contents"}},
		Parts: []wire.ChatPart{
			{Kind: wire.PartReasoning, Text: "hmm"},
			{Kind: wire.PartTool, Tool: &wire.ChatToolCall{ID: "call1", Name: "s1__read", Server: "s1", Tool: "read",
				Arguments: json.RawMessage(`{"path":"a.txt"}`), State: wire.ToolDone, Cut: true}},
			{Kind: wire.PartText, Text: "It says hello."},
		},
		Status: wire.TurnDone, Usage: wire.ChatUsage{In: 10, Out: 5}, FirstToken: 120, Duration: 900,
		Started: at(1).Add(456 * time.Microsecond)}
	must(t, s.PutTurn(ctx, "ann", testTurn("c1", "t2", 2, wire.TurnRunning)))
	must(t, s.PutTurn(ctx, "ann", rich))
	must(t, s.PutTurn(ctx, "ann", testTurn("c1", "t0", 0, wire.TurnDone)))
	must(t, s.PutTurn(ctx, "ann", testTurn("c2", "t0", 0, wire.TurnDone)))

	turns, err := s.Turns(ctx, "ann", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 3 || turns[0].ID != "t0" || turns[1].ID != "t1" || turns[2].ID != "t2" {
		t.Fatalf("Turns = %+v, want t0, t1, t2", turns)
	}
	want := rich
	want.Started = at(1)
	if !reflect.DeepEqual(turns[1], want) {
		t.Errorf("turn t1 = %+v\nwant %+v", turns[1], want)
	}

	// Putting a turn again replaces it.
	done := testTurn("c1", "t2", 2, wire.TurnStopped)
	done.Parts = []wire.ChatPart{{Kind: wire.PartText, Text: "partial"}}
	must(t, s.PutTurn(ctx, "ann", done))
	if turns, _ := s.Turns(ctx, "ann", "c1"); len(turns) != 3 || !reflect.DeepEqual(turns[2], done) {
		t.Errorf("turns after replacing t2 = %+v", turns)
	}

	must(t, s.DeleteTurnsFrom(ctx, "ann", "c1", 1))
	if turns, _ := s.Turns(ctx, "ann", "c1"); len(turns) != 1 || turns[0].ID != "t0" {
		t.Errorf("turns after DeleteTurnsFrom(1) = %+v, want t0 only", turns)
	}
	if turns, _ := s.Turns(ctx, "ann", "c2"); len(turns) != 1 {
		t.Errorf("the other conversation lost turns: %+v", turns)
	}
	if err := s.DeleteTurnsFrom(ctx, "ann", "c9", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteTurnsFrom of a missing conversation: %v", err)
	}
	if err := s.PutTurn(ctx, "ann", testTurn("c9", "t0", 0, wire.TurnDone)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutTurn in a missing conversation: %v", err)
	}
}

func TestDeleteChatTakesItsTurns(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	must(t, s.AddChat(ctx, "ann", testChat("c1", 0)))
	must(t, s.PutTurn(ctx, "ann", testTurn("c1", "t0", 0, wire.TurnDone)))
	must(t, s.PutTurn(ctx, "ann", testTurn("c1", "t1", 1, wire.TurnRunning)))
	must(t, s.DeleteChat(ctx, "ann", "c1"))

	// A new conversation of the same id starts empty, and the running turn
	// of the old one is not there to interrupt.
	must(t, s.AddChat(ctx, "ann", testChat("c1", 0)))
	if turns, err := s.Turns(ctx, "ann", "c1"); err != nil || len(turns) != 0 {
		t.Errorf("turns of the new conversation = %+v, %v; want none", turns, err)
	}
	if n, err := s.InterruptTurns(ctx); err != nil || n != 0 {
		t.Errorf("InterruptTurns = %d, %v; want 0", n, err)
	}
}

func TestChatsAreLimitedPerUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	batch := make([]wire.Chat, wire.MaxChats-1)
	for i := range batch {
		batch[i] = testChat(fmt.Sprintf("c%d", i), 0)
	}
	must(t, s.AddChats(ctx, "ann", batch))

	// A group that does not fit is refused whole.
	err := s.AddChats(ctx, "ann", []wire.Chat{testChat("x1", 0), testChat("x2", 0)})
	if !errors.Is(err, store.ErrTooManyChats) {
		t.Errorf("AddChats beyond the limit: %v, want ErrTooManyChats", err)
	}
	if _, err := s.Chat(ctx, "ann", "x1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("part of a refused group was stored: %v", err)
	}
	must(t, s.AddChat(ctx, "ann", testChat("last", 0)))
	if err := s.AddChat(ctx, "ann", testChat("one-more", 0)); !errors.Is(err, store.ErrTooManyChats) {
		t.Errorf("AddChat beyond the limit: %v, want ErrTooManyChats", err)
	}
	if list, _ := s.Chats(ctx, "ann"); len(list) != wire.MaxChats {
		t.Errorf("ann has %d conversations, want %d", len(list), wire.MaxChats)
	}
	must(t, s.AddChat(ctx, "bob", testChat("c0", 0)))
	must(t, s.DeleteChat(ctx, "ann", "c0"))
	must(t, s.AddChat(ctx, "ann", testChat("one-more", 0)))
}

func TestSearchChatsIsLiteralAndCaseInsensitive(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	// Each conversation has a title and a turn with the person's message,
	// attachments and the answer's parts.
	for i, c := range []struct {
		id, title, text string
		answer          []wire.ChatPart
		attach          []wire.ChatAttachment
	}{
		{id: "percent", title: "Cut the budget", text: "by 50% now"},
		{id: "fifty", title: "Growth", answer: []wire.ChatPart{{Kind: wire.PartText, Text: "by 500 and more"}}},
		{id: "sure", title: "100% sure"},
		{id: "under", title: "plain", text: "call snake_case_name"},
		{id: "slash", title: `C:\Temp`, text: `copy D:\Data`},
		{id: "unicode", title: "Überblick", answer: []wire.ChatPart{
			{Kind: wire.PartReasoning, Text: "hidden thoughts"},
			{Kind: wire.PartText, Text: "Ärger mit Straßen"},
		}},
		{id: "attach", title: "files", attach: []wire.ChatAttachment{
			{Kind: wire.AttachPrompt, Server: "s1", Name: "Summarize", Text: "prompt body"},
			{Kind: wire.AttachResource, Server: "s1", URI: "file:///Reports/Q3.md", Text: "resource body"},
		}},
	} {
		must(t, s.AddChat(ctx, "ann", wire.Chat{ID: c.id, Title: c.title, Model: "m1", Created: at(0), Updated: at(i)}))
		turn := testTurn(c.id, "t0", 0, wire.TurnDone)
		turn.Text, turn.Parts, turn.Attachments = c.text, c.answer, c.attach
		must(t, s.PutTurn(ctx, "ann", turn))
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"50%", []string{"percent"}},
		{"50", []string{"fifty", "percent"}},
		{"%", []string{"sure", "percent"}},
		{"e_c", []string{"under"}},
		{"_", []string{"under"}},
		{`\`, []string{"slash"}},
		{`c:\t`, []string{"slash"}},
		{`d:\d`, []string{"slash"}},
		{"BUDGET", []string{"percent"}},
		{"bY 50", []string{"fifty", "percent"}},
		{"ÜBERB", []string{"unicode"}},
		{"ÄRGER MIT", []string{"unicode"}},
		{"hidden", nil},
		{"summarize", []string{"attach"}},
		{"reports/q3", []string{"attach"}},
		{"prompt body", nil},
		{"", []string{"attach", "unicode", "slash", "under", "sure", "fifty", "percent"}},
	} {
		got, err := s.SearchChats(ctx, "ann", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("SearchChats(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}

	// The answer's text is found once the turn is put again with it.
	grown := testTurn("under", "t0", 0, wire.TurnDone)
	grown.Parts = []wire.ChatPart{{Kind: wire.PartText, Text: "Found it"}}
	must(t, s.PutTurn(ctx, "ann", grown))
	if got, _ := s.SearchChats(ctx, "ann", "found IT"); !slices.Equal(got, []string{"under"}) {
		t.Errorf("search after the answer grew = %v, want [under]", got)
	}
	if got, _ := s.SearchChats(ctx, "ann", "snake"); len(got) != 0 {
		t.Errorf("search for the replaced message = %v, want nothing", got)
	}
}

// putRunningTurns gives each of users a conversation "c1" of a done turn
// and a running one.
func putRunningTurns(t *testing.T, s *store.Store, users ...string) {
	t.Helper()
	ctx := context.Background()
	for _, u := range users {
		must(t, s.AddChat(ctx, u, testChat("c1", 0)))
		must(t, s.PutTurn(ctx, u, testTurn("c1", "t0", 0, wire.TurnDone)))
		must(t, s.PutTurn(ctx, u, testTurn("c1", "t1", 1, wire.TurnRunning)))
	}
}

func TestInterruptTurnsMarksEveryRunningTurn(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	putRunningTurns(t, s, "ann", "bob")
	n, err := s.InterruptTurns(ctx)
	if err != nil || n != 2 {
		t.Fatalf("InterruptTurns = %d, %v; want 2", n, err)
	}
	for _, u := range []string{"ann", "bob"} {
		turns, err := s.Turns(ctx, u, "c1")
		if err != nil || len(turns) != 2 {
			t.Fatalf("%s's turns = %+v, %v", u, turns, err)
		}
		want := testTurn("c1", "t1", 1, wire.TurnInterrupted)
		if turns[0].Status != wire.TurnDone || !reflect.DeepEqual(turns[1], want) {
			t.Errorf("%s's turns after InterruptTurns = %+v", u, turns)
		}
	}
	if n, err := s.InterruptTurns(ctx); err != nil || n != 0 {
		t.Errorf("InterruptTurns again = %d, %v; want 0", n, err)
	}
}

func TestInterruptTurnsOfMarksOnlyThatUsersRunningTurns(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	putRunningTurns(t, s, "ann", "bob")
	if n, err := s.InterruptTurnsOf(ctx, "ann"); err != nil || n != 1 {
		t.Fatalf("InterruptTurnsOf(ann) = %d, %v; want 1", n, err)
	}
	for u, want := range map[string]wire.TurnStatus{"ann": wire.TurnInterrupted, "bob": wire.TurnRunning} {
		turns, err := s.Turns(ctx, u, "c1")
		if err != nil || len(turns) != 2 {
			t.Fatalf("%s's turns = %+v, %v", u, turns, err)
		}
		if turns[0].Status != wire.TurnDone || turns[1].Status != want {
			t.Errorf("%s's turns after InterruptTurnsOf(ann) = %s, %s; want done, %s", u, turns[0].Status, turns[1].Status, want)
		}
	}
}
