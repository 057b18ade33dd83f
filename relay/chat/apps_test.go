package chat_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/toolnames"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A tool for its App only is never offered to the model; its server's
// other tools are.
func TestToolsForTheAppOnlyAreNotOffered(t *testing.T) {
	r := newRelay(t, 0)
	srv := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, nil)
	done := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&mcp.Tool{Name: "show", InputSchema: schema, Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://apps/view"}}}, done)
	srv.AddTool(&mcp.Tool{Name: "refresh", InputSchema: schema, Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}}, done)
	id := r.add("apps", fixture.ServeOnce(t, srv).URL())

	r.model.Queue(modelfixture.Text("ok"))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Hi."}, nil)
	r.ended(c.ID)
	tools := r.model.Await(t, 1)[0].Tools
	if !hasTool(tools, toolnames.Model.Name(id, "show")) || hasTool(tools, toolnames.Model.Name(id, "refresh")) {
		t.Errorf("offered %+v; want show and not refresh", tools)
	}
}

// What a tool call's App view gives the model (ui/update-model-context)
// goes before the person's next message, named by the relay's record of
// the call; a newer one replaces it, an empty one clears it, and a call
// not of the conversation is refused.
func TestAppContextGoesWithTheNextMessage(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolEcho), Arguments: `{"text":"x"}`}),
		modelfixture.Text("Shown."), modelfixture.Text("Seen."), modelfixture.Text("Cleared."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Show it."}, nil)
	call := r.ended(c.ID).Parts[0].Tool

	if err := r.op(wire.OpSetChatAppContext, wire.SetChatAppContextArgs{Chat: c.ID, Call: "call-not-here", Text: "x"}, nil); err == nil {
		t.Error("context for a call not of the conversation was taken")
	}
	if err := r.op(wire.OpSetChatAppContext, wire.SetChatAppContextArgs{Chat: c.ID, Call: call.ID, Text: strings.Repeat("x", wire.MaxAppContext+1)}, nil); err == nil {
		t.Error("an oversized context was taken")
	}
	r.must(wire.OpSetChatAppContext, wire.SetChatAppContextArgs{Chat: c.ID, Call: call.ID, Text: "old selection"}, nil)
	r.must(wire.OpSetChatAppContext, wire.SetChatAppContextArgs{Chat: c.ID, Call: call.ID, Text: "The person selected row 3."}, nil)
	kept, err := r.st.Chat(context.Background(), user, c.ID)
	if err != nil || len(kept.AppContext) != 1 || kept.AppContext[0].Text != "The person selected row 3." {
		t.Fatalf("the conversation keeps the context %+v (%v), want the newer one alone", kept.AppContext, err)
	}
	r.until("the conversation without its context in the dashboard's snapshot", func(s wire.Snapshot) bool {
		for _, ch := range s.Chats {
			if ch.ID == c.ID {
				return ch.AppContext == nil
			}
		}
		return false
	})

	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "What did I pick?"}, nil)
	r.ended(c.ID)
	last := r.model.Await(t, 3)[2].Messages
	text := last[len(last)-1].Text()
	want := `[Context from the view of tool "` + toolEcho + `" of server ` + r.server + "]\nThe person selected row 3."
	if !strings.Contains(text, want) || !strings.HasSuffix(text, "What did I pick?") || strings.Contains(text, "old selection") {
		t.Errorf("the model's last message reads %q", text)
	}

	r.must(wire.OpSetChatAppContext, wire.SetChatAppContextArgs{Chat: c.ID, Call: call.ID, Text: ""}, nil)
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "And now?"}, nil)
	r.ended(c.ID)
	last = r.model.Await(t, 4)[3].Messages
	if text := last[len(last)-1].Text(); strings.Contains(text, "Context from the view") {
		t.Errorf("the cleared context still reaches the model: %q", text)
	}
	// The earlier turn's message is given back as it was sent, without the
	// context of its time.
	for _, m := range last[:len(last)-1] {
		if strings.Contains(m.Text(), "selected row 3") {
			t.Errorf("an earlier message carries the context: %q", m.Text())
		}
	}
}

// A tool call shows as a card from its first event, streaming the
// arguments the model has written so far; the same card then becomes the
// call, and a call the model's answer stops in the middle of fails saying
// so, with what it had written.
func TestAToolCallShowsAsItStreams(t *testing.T) {
	r := newRelay(t, 0)
	const args = `{"text":"a call written in pieces"}`
	r.model.Queue(modelfixture.Reply{ToolCalls: []modelfixture.ToolCall{{Name: r.name(toolEcho), Arguments: args}}, Chunk: 4},
		modelfixture.Text("Done."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Echo it."}, nil)
	turn := r.ended(c.ID)
	var cards []*wire.ChatToolCall
	for _, p := range turn.Parts {
		if p.Kind == wire.PartTool {
			cards = append(cards, p.Tool)
		}
	}
	if len(cards) != 1 || cards[0].State != wire.ToolDone || cards[0].PartialArguments != "" || string(cards[0].Arguments) != args {
		t.Fatalf("the call's cards: %+v, want one, done, with its arguments whole", cards)
	}

	r.model.Queue(modelfixture.Reply{ToolCalls: []modelfixture.ToolCall{{Name: r.name(toolEcho), Arguments: args}}, Chunk: 4,
		Fail: &modelfixture.Fail{After: 3, Message: "the model fell over"}})
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Again."}, nil)
	turn = r.ended(c.ID)
	card := turn.Parts[len(turn.Parts)-1].Tool
	if card == nil || card.State != wire.ToolFailed || !strings.Contains(card.Error, "stopped before this call was complete") ||
		card.PartialArguments == "" || !strings.HasPrefix(args, card.PartialArguments) || card.Server != r.server || card.Tool != toolEcho {
		t.Fatalf("the cut call's card: %+v, want it failed, naming its tool, with the start of its arguments", card)
	}
}

// A model that pauses in the middle of a call's arguments: the card shows
// everything written before the pause, though no more comes to push it.
func TestAStreamingCardShowsTheArgumentsWrittenBeforeAPause(t *testing.T) {
	r := newRelay(t, 0)
	const args = `{"text":"a call written in pieces"}`
	release := make(chan struct{})
	r.model.Queue(modelfixture.Reply{ToolCalls: []modelfixture.ToolCall{{Name: r.name(toolEcho), Arguments: args}}, Chunk: 4,
		Hold: &modelfixture.Hold{After: 3, Until: release}}, modelfixture.Text("Done."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Echo it."}, nil)
	r.until("the card shows the three pieces written before the pause", func(snap wire.Snapshot) bool {
		t, _ := turnOf(snap, c.ID)
		for _, p := range t.Parts {
			if p.Tool != nil && p.Tool.State == wire.ToolStreaming && p.Tool.PartialArguments == args[:12] {
				return true
			}
		}
		return false
	})
	close(release)
	if turn := r.ended(c.ID); turn.Status != wire.TurnDone {
		t.Errorf("the turn ended %s", turn.Status)
	}
}
