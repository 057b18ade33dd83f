package chat_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/toolnames"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// name is the name the model sees for tool of the test server.
func (r *relay) name(tool string) string { return toolnames.Model.Name(r.server, tool) }

func TestTurnStreamsItsAnswerAndGivesTheToolResultToTheModel(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolEcho), Arguments: `{"text":"from the tool"}`}),
		modelfixture.Reply{Text: "The tool said: from the tool.", Usage: modelfixture.Usage{Input: 12, Output: 7}})
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Use the echo tool."}, nil)

	turn := r.ended(c.ID)
	if turn.Status != wire.TurnDone || turn.Error != "" {
		t.Fatalf("turn ended %s: %s", turn.Status, turn.Error)
	}
	if len(turn.Parts) != 2 || turn.Parts[0].Tool == nil || turn.Parts[1].Text != "The tool said: from the tool." {
		t.Fatalf("parts: %+v", turn.Parts)
	}
	card := turn.Parts[0].Tool
	if card.State != wire.ToolDone || card.Server != r.server || card.Tool != toolEcho || card.Result == nil || card.Result.Content[0].Text != "from the tool" {
		t.Errorf("card: %+v", card)
	}
	if turn.Usage.Out < 7 || turn.FirstToken <= 0 || turn.Duration < turn.FirstToken {
		t.Errorf("figures: usage %+v, first token %d ms, duration %d ms", turn.Usage, turn.FirstToken, turn.Duration)
	}

	reqs := r.model.Await(t, 2)
	if len(reqs[0].Tools) == 0 || !hasTool(reqs[0].Tools, r.name(toolEcho)) {
		t.Errorf("the model was not offered %s: %+v", r.name(toolEcho), reqs[0].Tools)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if res := last.ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "from the tool") {
		t.Errorf("the model's second request ends with %s", last.Raw)
	}

	var got wire.GetChatResult
	r.must(wire.OpGetChat, wire.ChatArgs{Chat: c.ID}, &got)
	if len(got.Turns) != 1 || got.Turns[0].Status != wire.TurnDone || got.Chat.Title != "Use the echo tool." || got.Chat.Turns != 1 {
		t.Errorf("stored: %+v", got)
	}
}

func TestAMessageThatCannotBeSavedIsRefusedAndRunsNothing(t *testing.T) {
	r := newRelay(t, 0)
	c := r.newChat()[0]
	// The model is asked while the turn is stored. Here the store fails
	// once the model has the request, and the model answers with a call of
	// a read-only tool, which would run without asking.
	r.model.Queue(modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolEcho), Arguments: `{"text":"x"}`}))
	fail := func() error {
		r.model.Await(t, 1)
		return errors.New("database or disk is full")
	}
	r.failTurn.Store(&fail)
	err := r.op(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Lost?"}, nil)
	if err == nil || !strings.Contains(err.Error(), "could not save the message") {
		t.Fatalf("send on a failing store: %v", err)
	}
	r.room.Close() // waits for the refused turn's loop
	snap, _ := r.m.Session(user).Snapshot()
	if len(snap.AgentCalls) != 0 {
		t.Errorf("a tool ran for a message that was not saved: %+v", snap.AgentCalls)
	}
	if len(snap.ChatTurns) != 0 {
		t.Errorf("a turn that was not saved is shown: %+v", snap.ChatTurns)
	}
	if i := slices.IndexFunc(snap.Chats, func(x wire.Chat) bool { return x.ID == c.ID }); i < 0 || snap.Chats[i].Running || snap.Chats[i].Turns != 0 {
		t.Errorf("the conversation after a refused message: %+v", snap.Chats)
	}

	r.failTurn.Store(nil)
	r.restart()
	r.model.Queue(modelfixture.Text("Saved this time."))
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Again."}, nil)
	if turn := r.ended(c.ID); turn.Status != wire.TurnDone || turn.N != 0 {
		t.Fatalf("the next message: %+v", turn)
	}
	var got wire.GetChatResult
	r.must(wire.OpGetChat, wire.ChatArgs{Chat: c.ID}, &got)
	if len(got.Turns) != 1 || got.Turns[0].Text != "Again." || got.Turns[0].Status != wire.TurnDone {
		t.Errorf("stored: %+v", got.Turns)
	}
}

func hasTool(tools []modelfixture.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func TestAQuestionDuringAChatCallIsThePersonsAndNeverReachesTheModel(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolAsk)}), modelfixture.Text("Done."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Greet me."}, nil)

	card := r.card(c.ID, wire.ToolRunning)
	snap := r.until("the question is asked", func(s wire.Snapshot) bool { return len(s.Asks) == 1 })
	ask := snap.Asks[0]
	if ask.Chat != c.ID || ask.Call != card.ID || !strings.HasPrefix(ask.Agent, "Chat: ") {
		t.Fatalf("the ask is not labelled with the conversation and its call: %+v (card %s)", ask, card.ID)
	}
	r.must(wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: ask.ID, Action: wire.ActionAccept, Content: map[string]any{"name": "Zorro"}}, nil)
	if turn := r.ended(c.ID); turn.Status != wire.TurnDone {
		t.Fatalf("turn ended %s: %s", turn.Status, turn.Error)
	}
	second := r.model.Await(t, 2)[1]
	if !strings.Contains(string(second.Body), "Hello, Zorro!") {
		t.Error("the model did not get the tool's result")
	}
	if strings.Contains(string(second.Body), formMessage) {
		t.Error("the model was shown the form")
	}
}

func TestApprovalsRunDenyAndAlways(t *testing.T) {
	r := newRelay(t, 0)
	write := func(text string) modelfixture.Reply {
		return modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolWrite), Arguments: `{"text":"` + text + `"}`})
	}
	r.model.Queue(write("one"), modelfixture.Text("ok"))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Write one."}, nil)
	card := r.card(c.ID, wire.ToolApproval)
	r.must(wire.OpApproveTool, wire.ApproveToolArgs{Chat: c.ID, Call: card.ID, Approval: wire.ApproveDeny}, nil)
	turn := r.ended(c.ID)
	if turn.Parts[0].Tool.State != wire.ToolDenied {
		t.Errorf("denied card: %+v", turn.Parts[0].Tool)
	}
	if res := r.model.Await(t, 2)[1]; !strings.Contains(string(res.Body), "The person denied this call.") || strings.Contains(string(res.Body), "wrote one") {
		t.Error("the model was not told only that the call was denied")
	}

	r.model.Queue(write("two"), write("three"), modelfixture.Text("ok"))
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Write two and three."}, nil)
	card = r.card(c.ID, wire.ToolApproval)
	r.must(wire.OpApproveTool, wire.ApproveToolArgs{Chat: c.ID, Call: card.ID, Approval: wire.ApproveAlways}, nil)
	turn = r.ended(c.ID) // the second call runs without asking
	var states []wire.ToolCallState
	for _, p := range turn.Parts {
		if p.Tool != nil {
			states = append(states, p.Tool.State)
		}
	}
	if len(states) != 2 || states[0] != wire.ToolDone || states[1] != wire.ToolDone || turn.Status != wire.TurnDone {
		t.Errorf("after Always: %v, turn %s", states, turn.Status)
	}

	r.must(wire.OpSetToolPolicy, wire.SetToolPolicyArgs{ToolRef: wire.ToolRef{Server: r.server, Tool: toolWrite}, Policy: wire.PolicyNever}, nil)
	r.model.Queue(modelfixture.Text("fine"))
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "And now?"}, nil)
	r.ended(c.ID)
	if reqs := r.model.Requests(); hasTool(reqs[len(reqs)-1].Tools, r.name(toolWrite)) {
		t.Error("a tool the person never allows was offered")
	}
}

func TestStopEndsTheStreamAndTheRunningCalls(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolSlow)}))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Run slow."}, nil)
	r.card(c.ID, wire.ToolRunning)
	r.must(wire.OpStopChat, wire.ChatArgs{Chat: c.ID}, nil)
	turn := r.ended(c.ID)
	if turn.Status != wire.TurnStopped || turn.Parts[0].Tool.State != wire.ToolCancelled {
		t.Errorf("stopped turn: %s, card %s", turn.Status, turn.Parts[0].Tool.State)
	}

	r.model.Queue(modelfixture.Reply{Text: "Counting: ", Endless: 10 * time.Millisecond})
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Count forever."}, nil)
	req := r.model.Await(t, 2)[1]
	r.until("the text streams", func(s wire.Snapshot) bool {
		t, _ := turnOf(s, c.ID)
		return len(t.Parts) > 0 && strings.Contains(t.Parts[0].Text, modelfixture.EndlessToken)
	})
	r.must(wire.OpStopChat, wire.ChatArgs{Chat: c.ID}, nil)
	if turn := r.ended(c.ID); turn.Status != wire.TurnStopped {
		t.Errorf("stopped stream: %s", turn.Status)
	}
	select {
	case <-req.Done():
	case <-time.After(waitFor):
		t.Fatal("the model's stream still runs")
	}
	if !req.ClientGone() {
		t.Error("the relay did not close the model's stream")
	}
}

func TestAStepLimitEndsARunawayLoop(t *testing.T) {
	r := newRelay(t, 3)
	r.model.SetDecide(func(*modelfixture.Request) modelfixture.Reply {
		return modelfixture.Calls(modelfixture.ToolCall{Name: r.name(toolEcho), Arguments: `{"text":"again"}`})
	})
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Loop."}, nil)
	turn := r.ended(c.ID)
	last := turn.Parts[len(turn.Parts)-1]
	if turn.Status != wire.TurnStepLimit || last.Kind != wire.PartNotice || !strings.Contains(last.Text, "3 steps") {
		t.Errorf("turn %s, last part %+v", turn.Status, last)
	}
	if n := len(r.model.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}

func TestARestartMarksTheRunningTurnInterruptedAndRetryRunsItAgain(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Reply{Text: "Partial answer ", Endless: 10 * time.Millisecond})
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Tell me."}, nil)
	r.until("the text streams", func(s wire.Snapshot) bool {
		t, _ := turnOf(s, c.ID)
		return len(t.Parts) > 0 && strings.Contains(t.Parts[0].Text, modelfixture.EndlessToken)
	})
	r.restart()

	var got wire.GetChatResult
	r.must(wire.OpGetChat, wire.ChatArgs{Chat: c.ID}, &got)
	if len(got.Turns) != 1 || got.Turns[0].Status != wire.TurnInterrupted || got.Chat.Running {
		t.Fatalf("after a restart: %+v", got)
	}
	r.model.Queue(modelfixture.Text("Whole answer."))
	r.must(wire.OpRetryChat, wire.RetryChatArgs{Chat: c.ID}, nil)
	if turn := r.ended(c.ID); turn.Status != wire.TurnDone || turn.N != 0 || turn.Parts[0].Text != "Whole answer." {
		t.Errorf("retried: %+v", turn)
	}
	edited := "Tell me more."
	r.model.Queue(modelfixture.Text("More."))
	r.must(wire.OpRetryChat, wire.RetryChatArgs{Chat: c.ID, Text: &edited}, nil)
	r.ended(c.ID)
	r.must(wire.OpGetChat, wire.ChatArgs{Chat: c.ID}, &got)
	if len(got.Turns) != 1 || got.Turns[0].Text != edited {
		t.Errorf("edited and resent: %+v", got.Turns)
	}
}

// A replica that lets its person go stops their running turn, which says
// it was interrupted; while it ran, the person was busy.
func TestLettingThePersonGoInterruptsTheirRunningTurn(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Reply{Text: "Partial answer ", Endless: 10 * time.Millisecond})
	c := r.newChat()[0]
	if r.room.Busy(user) {
		t.Error("busy before any turn")
	}
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Tell me."}, nil)
	r.until("the text streams", func(s wire.Snapshot) bool {
		t, _ := turnOf(s, c.ID)
		return len(t.Parts) > 0 && strings.Contains(t.Parts[0].Text, modelfixture.EndlessToken)
	})
	if !r.room.Busy(user) || r.room.Busy("someone else") {
		t.Errorf("while the turn runs, busy %v, someone else busy %v; want true, false", r.room.Busy(user), r.room.Busy("someone else"))
	}
	r.room.LetGo("someone else")
	if !r.room.Busy(user) {
		t.Error("letting someone else go stopped the turn")
	}
	r.room.LetGo(user)
	turn := r.ended(c.ID)
	if turn.Status != wire.TurnInterrupted || !strings.Contains(turn.Error, "restarted") {
		t.Errorf("the turn ended %s (%q), want interrupted saying the relay restarted the session", turn.Status, turn.Error)
	}
	if r.room.Busy(user) {
		t.Error("busy once the turn ended")
	}
}

func TestCompareSendsTheMessageToEachModel(t *testing.T) {
	r := newRelay(t, 0)
	other := modelfixture.Start(t, modelfixture.Options{})
	r.models.add(t, "m2", other, llm.Anthropic)
	r.model.Queue(modelfixture.Text("From one."))
	other.Queue(modelfixture.Text("From two."))
	chats := r.newChat("m1", "m2")
	if len(chats) != 2 || chats[0].Group == "" || chats[0].Group != chats[1].Group {
		t.Fatalf("compare group: %+v", chats)
	}
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: chats[0].ID, Text: "Hello both."}, nil)
	one, two := r.ended(chats[0].ID), r.ended(chats[1].ID)
	if one.Parts[0].Text != "From one." || two.Parts[0].Text != "From two." || two.Model != "m2" {
		t.Errorf("answers: %+v / %+v", one.Parts, two.Parts)
	}
	if got := other.Next(t); got.Provider != modelfixture.Anthropic || got.Messages[0].Text() != "Hello both." {
		t.Errorf("the second model was asked %+v", got)
	}
}

func TestABusyModelIsAskedAgainAndAFailureSaysWhy(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Status(429, "", "1"), modelfixture.Text("Now I can."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Hi."}, nil)
	turn := r.ended(c.ID)
	if turn.Status != wire.TurnDone || turn.Parts[0].Kind != wire.PartNotice || turn.Parts[1].Text != "Now I can." {
		t.Errorf("after a 429: %+v", turn)
	}

	r.model.Queue(modelfixture.Reply{Text: "Half", Fail: &modelfixture.Fail{After: 1, Message: "the model fell over"}})
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Again."}, nil)
	turn = r.ended(c.ID)
	if turn.Status != wire.TurnFailed || !strings.Contains(turn.Error, "the model fell over") {
		t.Errorf("a failure mid-stream: %s %q", turn.Status, turn.Error)
	}
}

func TestConversationsAreRenamedSearchedExportedAndDeleted(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Text("Paris is the **capital**."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Capital of France?"}, nil)
	r.ended(c.ID)
	title := "Geography"
	r.must(wire.OpUpdateChat, wire.UpdateChatArgs{Chat: c.ID, Title: &title}, nil)
	r.until("renamed in the state", func(s wire.Snapshot) bool {
		return len(s.Chats) == 1 && s.Chats[0].Title == title
	})

	var found wire.SearchChatsResult
	r.must(wire.OpSearchChats, wire.SearchChatsArgs{Query: "CAPITAL"}, &found)
	if len(found.Chats) != 1 || found.Chats[0] != c.ID {
		t.Errorf("search: %v", found.Chats)
	}
	r.must(wire.OpSearchChats, wire.SearchChatsArgs{Query: "Berlin"}, &found)
	if len(found.Chats) != 0 {
		t.Errorf("search for what is not said: %v", found.Chats)
	}

	var md, js wire.ExportChatResult
	r.must(wire.OpExportChat, wire.ExportChatArgs{Chat: c.ID, Format: wire.ExportMarkdown}, &md)
	r.must(wire.OpExportChat, wire.ExportChatArgs{Chat: c.ID, Format: wire.ExportJSON}, &js)
	if md.Name != "Geography.md" || !strings.Contains(md.Body, "# Geography") || !strings.Contains(md.Body, "Paris is the **capital**.") {
		t.Errorf("markdown export: %s\n%s", md.Name, md.Body)
	}
	var back wire.GetChatResult
	if err := json.Unmarshal([]byte(js.Body), &back); err != nil || len(back.Turns) != 1 || back.Turns[0].Text != "Capital of France?" {
		t.Errorf("json export: %v %+v", err, back)
	}

	r.must(wire.OpDeleteChat, wire.ChatArgs{Chat: c.ID}, nil)
	snap := r.until("deleted from the state", func(s wire.Snapshot) bool { return len(s.Chats) == 0 })
	if _, ok := turnOf(snap, c.ID); ok {
		t.Error("the deleted conversation's turn stays in the state")
	}
	if err := r.op(wire.OpGetChat, wire.ChatArgs{Chat: c.ID}, nil); err == nil {
		t.Error("a deleted conversation is still read")
	}
}

func TestAttachedPromptsAndResourcesAreReadAndGivenToTheModel(t *testing.T) {
	r := newRelay(t, 0)
	r.model.Queue(modelfixture.Text("Noted."))
	c := r.newChat()[0]
	r.must(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "Use these.", Attachments: []wire.ChatAttachment{
		{Kind: wire.AttachPrompt, Server: r.server, Name: promptBrief, Arguments: map[string]string{"topic": "rain"}},
		{Kind: wire.AttachResource, Server: r.server, URI: resourceURI},
		{Kind: wire.AttachResource, Server: r.server, URI: "test://missing"},
	}}, nil)
	turn := r.ended(c.ID)
	if turn.Status != wire.TurnDone || len(turn.Attachments) != 3 {
		t.Fatalf("turn %s with %d attachments", turn.Status, len(turn.Attachments))
	}
	if a := turn.Attachments; !strings.Contains(a[0].Text, "Brief me on rain.") || a[1].Text != resourceText+"\n" || a[2].Error == "" || a[2].Text != "" {
		t.Errorf("attachments as shown: %+v", a)
	}
	got := r.model.Next(t).Messages
	last := got[len(got)-1].Text()
	for _, want := range []string{"Brief me on rain.", resourceText, "Use these."} {
		if !strings.Contains(last, want) {
			t.Errorf("the model's message lacks %q: %q", want, last)
		}
	}
	if err := r.op(wire.OpSendChat, wire.SendChatArgs{Chat: c.ID, Text: "x", Attachments: []wire.ChatAttachment{{Kind: wire.AttachPrompt, Server: r.server}}}, nil); err == nil {
		t.Error("a prompt attachment without a name was taken")
	}
}
