package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/demo"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The demo model (make serve) shows a newcomer a whole turn on the demo
// server: a tool call, its question answered in the conversation, and an
// answer from the tool's result, each answer saying it is no AI.
func TestTheDemoModelRunsAWholeTurnOnTheDemoServer(t *testing.T) {
	r := newRelay(t, 0)
	reg, err := models.New([]models.Spec{models.DemoSpec()}, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.Model(context.Background(), user, models.DemoName)
	if err != nil {
		t.Fatal(err)
	}
	r.models.put(models.DemoName, m)
	url, stop, err := demo.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	r.add("demo", url)

	c := r.newChat(models.DemoName)[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Say hello to me."}, nil)
	card := r.card(c.ID, wire.ToolRunning)
	snap := r.until("the demo server asks", func(s wire.Snapshot) bool { return len(s.Asks) == 1 })
	if ask := snap.Asks[0]; ask.Chat != c.ID || ask.Call != card.ID {
		t.Fatalf("the demo's question is not the conversation's: %+v", ask)
	}
	r.must(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: snap.Asks[0].ID, Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}}, nil)
	turn := r.ended(c.ID)
	if turn.Status != wire.TurnDone {
		t.Fatalf("demo turn %s: %s", turn.Status, turn.Error)
	}
	var texts []string
	for _, p := range turn.Parts {
		if p.Kind == wire.PartText {
			texts = append(texts, p.Text)
		}
	}
	if len(texts) == 0 || !strings.Contains(strings.Join(texts, " "), "Ada") {
		t.Errorf("the demo's answer does not use the tool's result: %q", texts)
	}
	for _, text := range texts {
		if !strings.Contains(text, models.DemoLabel) {
			t.Errorf("a demo answer without its label: %q", text)
		}
	}
}
