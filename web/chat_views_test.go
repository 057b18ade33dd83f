package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

func chatTurn(status wire.TurnStatus, parts ...wire.ChatPart) wire.ChatTurn {
	return wire.ChatTurn{ID: "t1", Chat: "c1", Text: "find the files " + hostile, Status: status, Parts: parts,
		Attachments: []wire.ChatAttachment{{Kind: wire.AttachResource, Server: "s1", URI: "file:///a", Error: "gone " + hostile}}}
}

func toolPart(state wire.ToolCallState) wire.ChatPart {
	return wire.ChatPart{Kind: wire.PartTool, Tool: &wire.ChatToolCall{
		ID: "call1", Name: "s1__echo", Server: "s1", Tool: "echo", State: state,
		Arguments: json.RawMessage(`{"text":"` + strings.ReplaceAll(hostile, `"`, `'`) + `"}`),
	}}
}

func TestChatTurnShowsMessagePartsInOrderAsText(t *testing.T) {
	turn := chatTurn(wire.TurnDone,
		wire.ChatPart{Kind: wire.PartReasoning, Text: "thinking " + hostile},
		wire.ChatPart{Kind: wire.PartText, Text: "answer " + hostile},
		wire.ChatPart{Kind: wire.PartNotice, Text: "cut " + hostile},
		toolPart(wire.ToolDone),
	)
	turn.FirstToken, turn.Duration, turn.Usage = 420, 3100, wire.ChatUsage{In: 12, Out: 340}
	html := rendered(t, &ChatTurnView{Chat: "c1", Turn: turn, Last: true, ServerNames: map[string]string{"s1": "demo"}})
	if el := element(html, `data-turn="t1"`); !strings.Contains(el, `data-status="done"`) || !strings.Contains(el, "chat-turn") {
		t.Errorf("turn element %s", el)
	}
	order := []string{`class="chat-user"`, `class="chat-attach is-error"`, `class="chat-reasoning"`, `class="chat-text"`, `class="chat-notice"`, `class="chat-tool"`, `class="chat-figures"`}
	at := 0
	for _, hook := range order {
		i := strings.Index(html[at:], hook)
		if i < 0 {
			t.Fatalf("%s missing or out of order in\n%s", hook, html)
		}
		at += i
	}
	if strings.Contains(element(html, `class="chat-reasoning"`), "open") {
		t.Error("the reasoning is open by default")
	}
	if !strings.Contains(html, "First token in 0.42 s · took 3.1 s · 12 tokens in, 340 out") {
		t.Error("the figures are missing")
	}
	if element(html, "chat-regenerate") == "" || element(html, "chat-edit") == "" || element(html, "chat-retry") != "" {
		t.Error("a done last turn offers Regenerate and Edit, not Retry")
	}
}

func TestChatTurnOffersRetryOnlyOnTheLastEndedTurn(t *testing.T) {
	for _, status := range []wire.TurnStatus{wire.TurnFailed, wire.TurnInterrupted, wire.TurnStopped} {
		html := rendered(t, &ChatTurnView{Turn: chatTurn(status), Last: true})
		if element(html, "chat-retry") == "" {
			t.Errorf("%s: no Retry", status)
		}
	}
	if html := rendered(t, &ChatTurnView{Turn: chatTurn(wire.TurnFailed), Last: false}); element(html, "chat-retry") != "" {
		t.Error("an earlier turn offers Retry")
	}
	if html := rendered(t, &ChatTurnView{Turn: chatTurn(wire.TurnFailed), Last: true, Busy: true}); element(html, "chat-retry") != "" {
		t.Error("Retry is offered while a turn of the group runs")
	}
}

func TestChatTurnRunningSaysWhatItWaitsFor(t *testing.T) {
	turn := chatTurn(wire.TurnRunning)
	turn.Waiting = []string{"demo", "files"}
	html := rendered(t, &ChatTurnView{Turn: turn, Last: true})
	if !strings.Contains(html, "Waiting for servers: demo, files") || element(html, `class="chat-status"`) == "" {
		t.Errorf("no waiting status in\n%s", html)
	}
	if element(html, "chat-figures") != "" || element(html, "chat-regenerate") != "" {
		t.Error("a running turn shows figures or actions")
	}
	if !strings.Contains(element(html, `class="chat-parts"`), `aria-live="polite"`) {
		t.Error("the streaming region is not a polite live region")
	}
}

func TestChatToolCardActionsFollowItsState(t *testing.T) {
	cases := []struct {
		state   wire.ToolCallState
		present []string
		absent  []string
	}{
		{wire.ToolApproval, []string{"chat-run", "chat-deny", "chat-always"}, []string{"chat-cancel-tool"}},
		{wire.ToolRunning, []string{"chat-cancel-tool"}, []string{"chat-run"}},
		{wire.ToolDone, nil, []string{"chat-run", "chat-cancel-tool"}},
	}
	for _, c := range cases {
		call := *toolPart(c.state).Tool
		html := rendered(t, &ChatToolCard{Chat: "c1", Call: call, ServerName: "demo"})
		card := element(html, `class="chat-tool"`)
		if !strings.Contains(card, `data-call="call1"`) || !strings.Contains(card, `data-state="`+string(c.state)+`"`) {
			t.Errorf("%s: card %s", c.state, card)
		}
		for _, hook := range c.present {
			if element(html, hook) == "" {
				t.Errorf("%s: no %s", c.state, hook)
			}
		}
		for _, hook := range c.absent {
			if element(html, hook) != "" {
				t.Errorf("%s: %s shown", c.state, hook)
			}
		}
		if !strings.Contains(html, `class="chat-tool-name"`) || !strings.Contains(html, " on demo") {
			t.Errorf("%s: the tool and its server are not named", c.state)
		}
		if !strings.Contains(html, `class="chat-tool-args code-block"`) {
			t.Errorf("%s: no arguments", c.state)
		}
	}
}

func TestChatToolCardShowsResultErrorCutAndAsksInline(t *testing.T) {
	call := *toolPart(wire.ToolDone).Tool
	call.Result = &wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "result " + hostile}}}
	call.Cut = true
	ask := wire.Ask{ID: "a1", Kind: wire.AskForm, State: wire.AskPending, Server: "s1", ServerName: "demo", Chat: "c1", Call: "call1",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`), Deadline: time.Now().Add(time.Minute)}
	html := rendered(t, &ChatToolCard{Chat: "c1", Call: call, Asks: []wire.Ask{ask}, AskStatus: map[string]store.AskStatus{}})
	for _, hook := range []string{`class="chat-tool-result"`, `class="chat-tool-cut sb-note"`, `class="chat-ask"`, `data-ask-id="a1"`} {
		if !strings.Contains(html, hook) {
			t.Errorf("no %s in\n%s", hook, html)
		}
	}
	if i, j := strings.Index(html, `class="chat-ask"`), strings.Index(html, `data-ask-id="a1"`); j < i {
		t.Error("the ask card is not inside .chat-ask")
	}
	call.State, call.Result, call.Error = wire.ToolFailed, nil, "the server said no "+hostile
	html = rendered(t, &ChatToolCard{Chat: "c1", Call: call})
	if !strings.Contains(html, `class="chat-tool-error sb-error"`) {
		t.Errorf("no error in\n%s", html)
	}
}

func TestChatListItemsAreOrderedMarkedAndFiltered(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 1, 1, 0, m, 0, 0, time.UTC) }
	chats := []wire.Chat{
		{ID: "old", Title: "Old one", Model: "m", Updated: at(1)},
		{ID: "run", Title: "Running " + hostile, Model: "m", Updated: at(5), Running: true},
		{ID: "new", Title: "", Model: "m", Updated: at(9)},
	}
	html := rendered(t, &ChatList{Chats: chats, Shown: []string{"run"}})
	items := elements(html, `data-chat="`)
	if len(items) != 3 || !strings.Contains(items[0], `"new"`) || !strings.Contains(items[1], `"run"`) || !strings.Contains(items[2], `"old"`) {
		t.Fatalf("items %v", items)
	}
	if !strings.Contains(items[1], "is-running") || !strings.Contains(items[1], "is-selected") {
		t.Errorf("running, shown item %s", items[1])
	}
	if !strings.Contains(html, `href="/chat?c=run"`) {
		t.Error("no link to the conversation")
	}
	for _, hook := range []string{"chat-new", "chat-search", "chat-rename", "chat-delete"} {
		if element(html, hook) == "" {
			t.Errorf("no %s", hook)
		}
	}
	html = rendered(t, &ChatList{Chats: chats, filter: chatFilter{Query: "old"}})
	if items := elements(html, `data-chat="`); len(items) != 1 {
		t.Errorf("filtered items %v", items)
	}
	html = rendered(t, &ChatList{Chats: chats, confirming: "old"})
	if element(html, "chat-delete-confirm") == "" {
		t.Error("no confirmation of the deletion")
	}
}

func TestChatConvMergesTheLiveTurnAndShowsOrphanAsks(t *testing.T) {
	c := &ChatConv{
		Chat:   wire.Chat{ID: "c1", Model: "m", Turns: 2},
		Live:   &wire.ChatTurn{ID: "t2", Chat: "c1", N: 1, Status: wire.TurnRunning},
		Asks:   []wire.Ask{{ID: "a9", Kind: wire.AskForm, State: wire.AskPending, Chat: "c1", Call: "elsewhere", Schema: json.RawMessage(`{"type":"object"}`)}},
		stored: []wire.ChatTurn{{ID: "t1", Chat: "c1", N: 0, Status: wire.TurnDone}, {ID: "t2", Chat: "c1", N: 1, Status: wire.TurnRunning}},
		loaded: true,
	}
	html := rendered(t, c)
	if !strings.Contains(element(html, `class="chat-conv`), `data-chat="c1"`) {
		t.Error("no .chat-conv for c1")
	}
	if turns := elements(html, `data-turn="`); len(turns) != 2 {
		t.Errorf("turns %v", turns)
	}
	if !strings.Contains(html, `data-ask-id="a9"`) {
		t.Error("an ask of no shown call is not shown")
	}
}

func TestArgsPreviewIsOneShortLineAsWritten(t *testing.T) {
	if got := argsPreview(json.RawMessage("{\n  \"text\": \"\\u003cb\\u003e\",\n  \"n\": 3\n}")); got != `{"text":"<b>","n":3}` {
		t.Errorf("preview %q", got)
	}
	if got := argsPreview(nil); got != "{}" {
		t.Errorf("preview of no arguments %q", got)
	}
	long := json.RawMessage(`{"text":"` + strings.Repeat("x", 200) + `"}`)
	if got := argsPreview(long); len([]rune(got)) != maxArgsPreview {
		t.Errorf("preview of %d characters", len([]rune(got)))
	}
}
