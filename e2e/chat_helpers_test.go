package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/chatfixture"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// What the chat tests see: the Chat view (route /chat) of a relay whose
// models are a model fixture (modelfixture), with the chat fixture
// (chatfixture) registered, whose tools the model calls. Each test's
// conversations carry a tag in their messages, and the fixture answers a
// request with the script of the tag it finds in it, so that the
// conversations of one relay do not take each other's replies.

// The models the chat tests configure, both at one model fixture.
const (
	modelAlpha = "alpha" // OpenAI's chat completions
	modelBeta  = "beta"  // Anthropic's Messages API
	// What each asks its endpoint for.
	alphaModel = "alpha-1"
	betaModel  = "beta-1"
)

// chatServerName is the name the tests give the chat fixture.
const chatServerName = "desk"

// chatWorld is a relay with the fixture models and the chat fixture
// registered and ready.
type chatWorld struct {
	t  *testing.T
	r  *relay
	m  *modelfixture.Server
	fx *chatfixture.Server

	mu      sync.Mutex
	scripts []*convScript
}

// startChatWorld starts a model fixture, a relay whose models are at it,
// and the chat fixture, registered for the local user and ready.
func startChatWorld(t *testing.T) *chatWorld {
	t.Helper()
	w := &chatWorld{t: t}
	w.m = modelfixture.Start(t, modelfixture.Options{Decide: w.decide, Wait: waitTimeout})
	w.r = startRelayWith(t, func(cfg *service.Config) {
		cfg.Models = []models.Spec{
			{Name: modelAlpha, Provider: llm.OpenAI, URL: w.m.OpenAIURL(), Model: alphaModel},
			{Name: modelBeta, Provider: llm.Anthropic, URL: w.m.AnthropicURL(), Model: betaModel},
		}
	})
	w.fx = chatfixture.Start(t)
	s, _ := w.r.openSocket(t, w.r.sessionCookie(t))
	id := s.addServer(chatServerName, w.fx.URL())
	s.waitServerState(id, wire.StateReady)
	// The tests watch the pages from here on. A socket nobody reads would
	// fill with the answers' changes, and hold a stopping relay up until
	// its close handshake timed out.
	s.dashboard().Close()
	s.c.CloseNow()
	return w
}

// convScript answers the model requests that carry its tag: reply gets
// the request and its place among the script's requests, from 1.
type convScript struct {
	tag   string
	reply func(n int, req *modelfixture.Request) modelfixture.Reply

	mu      sync.Mutex
	reqs    []*modelfixture.Request
	arrived chan struct{} // closed, and replaced, when a request comes
}

// script registers the replies of the conversations whose messages carry
// a fresh tag, and returns the script; its tag goes in the person's first
// message.
func (w *chatWorld) script(name string, reply func(n int, req *modelfixture.Request) modelfixture.Reply) *convScript {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &convScript{tag: fmt.Sprintf("[%s-%d]", name, len(w.scripts)+1), reply: reply, arrived: make(chan struct{})}
	w.scripts = append(w.scripts, s)
	return s
}

// decide answers a model request with the script whose tag it carries.
func (w *chatWorld) decide(req *modelfixture.Request) modelfixture.Reply {
	w.mu.Lock()
	var s *convScript
	for _, c := range w.scripts {
		if strings.Contains(string(req.Body), c.tag) {
			s = c
		}
	}
	w.mu.Unlock()
	if s == nil {
		w.t.Errorf("a model request (%d) carries no script's tag: %.300s", req.N, req.Body)
		return modelfixture.Status(500, "", "")
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.mu.Unlock()
	return s.reply(n, req)
}

// await waits until the script got n requests and returns the first n.
func (s *convScript) await(t testing.TB, n int) []*modelfixture.Request {
	t.Helper()
	timeout := time.NewTimer(waitTimeout)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		got, arrived := len(s.reqs), s.arrived
		if got >= n {
			reqs := append([]*modelfixture.Request(nil), s.reqs[:n]...)
			s.mu.Unlock()
			return reqs
		}
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-timeout.C:
			t.Fatalf("the model got %d request(s) of %s in %v, want %d", got, s.tag, waitTimeout, n)
			return nil
		}
	}
}

// count is how many requests the script got so far.
func (s *convScript) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// toolName is the name under which req offers the chat fixture's tool,
// failing the test when it offers none: the relay names a tool after its
// server, so the test finds it by its ending.
func toolName(t testing.TB, req *modelfixture.Request, tool string) string {
	t.Helper()
	var names []string
	for _, tl := range req.Tools {
		if strings.HasSuffix(tl.Name, "__"+tool) {
			return tl.Name
		}
		names = append(names, tl.Name)
	}
	t.Errorf("the model was offered %v, none of them %s", names, tool)
	return tool
}

// lastMessage is the last message of a request.
func lastMessage(t testing.TB, req *modelfixture.Request) modelfixture.Message {
	t.Helper()
	if len(req.Messages) == 0 {
		t.Fatalf("model request %d has no messages", req.N)
	}
	return req.Messages[len(req.Messages)-1]
}

// lastAssistant is the last assistant message of a request.
func lastAssistant(req *modelfixture.Request) modelfixture.Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "assistant" {
			return req.Messages[i]
		}
	}
	return modelfixture.Message{}
}

// toolResults are the tool results of a request's messages after the last
// assistant message (OpenAI sends one message per result).
func toolResults(req *modelfixture.Request) []modelfixture.ToolResult {
	var out []modelfixture.ToolResult
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "assistant"; i-- {
		out = append(req.Messages[i].ToolResults(), out...)
	}
	return out
}

// chatPage is a tab on the Chat view of a chat world's relay.
type chatPage struct {
	*tab
	w *chatWorld
}

// chatPath is the Chat view's route.
const chatPath = "/chat"

// openChatPage logs a fresh tab in to the world's relay and opens the
// Chat view from the pages' links.
func (w *chatWorld) openChatPage(t *testing.T) *chatPage {
	t.Helper()
	p := openTab(t)
	p.login(w.r)
	p.click(`#pages a[href="` + chatPath + `"]`)
	p.waitPresent("textarea.chat-input")
	return &chatPage{tab: p, w: w}
}

// as returns the page seen from another (sub)test.
func (p *chatPage) as(t testing.TB) *chatPage { return &chatPage{tab: p.tab.as(t), w: p.w} }

// Selectors of the Chat view.
func convSel(chat string) string     { return fmt.Sprintf(`.chat-conv[data-chat=%s]`, jsString(chat)) }
func chatItemSel(chat string) string { return fmt.Sprintf(`.chat-item[data-chat=%s]`, jsString(chat)) }
func turnSel(chat, turn string) string {
	return fmt.Sprintf(`%s .chat-turn[data-turn=%s]`, convSel(chat), jsString(turn))
}
func toolCardSel(turn, call string) string {
	return fmt.Sprintf(`%s .chat-tool[data-call=%s]`, turn, jsString(call))
}

// convIDs are the conversations shown.
func (p *chatPage) convIDs() []string {
	p.t.Helper()
	return eval[[]string](p.tab, `[...document.querySelectorAll(".chat-conv")].map(c => c.dataset.chat)`)
}

// chatPageURL is the address of the Chat view showing conversation chat.
func (w *chatWorld) chatPageURL(chat string) string { return w.r.URL() + chatPath + "?c=" + chat }

// startChat starts a new conversation with model by sending its first
// message, as a person does: New, the model, the message, Send. It returns
// the conversation's id and its first turn's, once the page shows them.
func (p *chatPage) startChat(model, text string) (chat, turn string) {
	p.t.Helper()
	p.click(".chat-new")
	p.waitPresent(".chat-start")
	p.pickModel(model)
	return p.sendNew(text)
}

// sendNew sends text from a new conversation's composer and returns the
// conversation and turn the page shows for it.
func (p *chatPage) sendNew(text string) (chat, turn string) {
	p.t.Helper()
	before := append([]string{}, p.convIDs()...) // JSON [] rather than null
	p.fill("textarea.chat-input", text)
	p.click(".chat-send")
	chat = waitValue[string](p.tab, "the new conversation", fmt.Sprintf(
		`[...document.querySelectorAll(".chat-conv")].map(c => c.dataset.chat).find(id => !%s.includes(id)) ?? ""`, mustJSON(before)))
	return chat, p.waitNewTurn(chat, nil)
}

// pickModel chooses the new conversation's model, as a person does on the
// list.
func (p *chatPage) pickModel(model string) {
	p.t.Helper()
	const sel = "select.chat-model"
	if eval[string](p.tab, fmt.Sprintf(`document.querySelector(%s)?.value ?? ""`, jsString(sel))) != model {
		p.chooseOption(sel, "model", model)
	}
}

// showChat opens a conversation from the list unless it shows already.
func (p *chatPage) showChat(chat string) {
	p.t.Helper()
	if p.count(convSel(chat)) == 0 {
		p.click(chatItemSel(chat) + " .chat-open")
		p.waitPresent(convSel(chat))
	}
}

// turnIDs are the turns the conversation shows, in order.
func (p *chatPage) turnIDs(chat string) []string {
	p.t.Helper()
	return eval[[]string](p.tab, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(t => t.dataset.turn)`,
		jsString(convSel(chat)+" .chat-turn")))
}

// send types text into the message box of the conversation shown and
// presses Send; it returns the id of the turn the page shows for it.
func (p *chatPage) send(chat, text string) string {
	p.t.Helper()
	before := append([]string{}, p.turnIDs(chat)...)
	p.fill("textarea.chat-input", text)
	p.click(".chat-send")
	return p.waitNewTurn(chat, before)
}

// waitNewTurn waits for a turn of the conversation not among before.
func (p *chatPage) waitNewTurn(chat string, before []string) string {
	p.t.Helper()
	before = append([]string{}, before...)
	return waitValue[string](p.tab, "a new turn in "+chat, fmt.Sprintf(
		`[...document.querySelectorAll(%s)].map(t => t.dataset.turn).find(id => !%s.includes(id)) ?? ""`,
		jsString(convSel(chat)+" .chat-turn"), mustJSON(before)))
}

// waitStatus waits until the turn shows status.
func (p *chatPage) waitStatus(chat, turn string, status wire.TurnStatus) {
	p.t.Helper()
	p.waitAttr(turnSel(chat, turn), "data-status", string(status))
}

// answerText is the text of the turn's answer: every .chat-text of it.
func (p *chatPage) answerText(chat, turn string) string {
	p.t.Helper()
	return eval[string](p.tab, answerTextJS(turnSel(chat, turn)))
}

// answerTextJS is a JavaScript expression of the text of the answers in
// the element sel selects.
func answerTextJS(sel string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s)].map(e => e.textContent).join("")`, jsString(sel+" .chat-text"))
}

// waitAnswer waits until the turn's answer contains want.
func (p *chatPage) waitAnswer(chat, turn, want string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("the answer of %s containing %q", turn, want),
		fmt.Sprintf(`%s.includes(%s)`, answerTextJS(turnSel(chat, turn)), jsString(want)))
}

// endlessWords counts the fixture's endless tokens in the turn's answer.
func (p *chatPage) endlessWords(chat, turn string) int {
	p.t.Helper()
	return eval[int](p.tab, endlessWordsJS(chat, turn))
}

// endlessWordsJS is a JavaScript expression counting the endless tokens
// in the turn's answer.
func endlessWordsJS(chat, turn string) string {
	return fmt.Sprintf(`(%s.match(/%s/g) ?? []).length`, answerTextJS(turnSel(chat, turn)), strings.TrimSpace(modelfixture.EndlessToken))
}

// waitMoreWords waits until the turn's answer holds more than n endless
// tokens, and returns how many it holds then.
func (p *chatPage) waitMoreWords(chat, turn string, n int) int {
	p.t.Helper()
	return waitValue[int](p.tab, fmt.Sprintf("more than %d words streamed into %s", n, turn),
		fmt.Sprintf(`(n => n > %d ? n : 0)(%s)`, n, endlessWordsJS(chat, turn)))
}

// toolCalls are the ids of the tool calls the turn shows, in order.
func (p *chatPage) toolCalls(chat, turn string) []string {
	p.t.Helper()
	return eval[[]string](p.tab, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(c => c.dataset.call)`,
		jsString(turnSel(chat, turn)+" .chat-tool")))
}

// waitToolCalls waits until the turn shows n tool calls and returns their ids.
func (p *chatPage) waitToolCalls(chat, turn string, n int) []string {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("%d tool call(s) in %s", n, turn), fmt.Sprintf(`document.querySelectorAll(%s).length === %d`,
		jsString(turnSel(chat, turn)+" .chat-tool"), n))
	return p.toolCalls(chat, turn)
}

// waitToolState waits until a tool call's card shows state.
func (p *chatPage) waitToolState(chat, turn, call string, state wire.ToolCallState) {
	p.t.Helper()
	p.waitAttr(toolCardSel(turnSel(chat, turn), call), "data-state", string(state))
}

// inlineAsk waits for the card of a question inside a tool call's card and
// returns its ask id.
func (p *chatPage) inlineAsk(chat, turn, call string, kind wire.AskKind) string {
	p.t.Helper()
	sel := fmt.Sprintf(`%s .chat-ask .ask-card[data-kind=%s]`, toolCardSel(turnSel(chat, turn), call), jsString(string(kind)))
	return waitValue[string](p.tab, "a question inside the card of call "+call,
		fmt.Sprintf(`document.querySelector(%s)?.dataset.askId ?? ""`, jsString(sel)))
}

// stopTurn presses Stop and waits until the turn shows stopped.
func (p *chatPage) stopTurn(chat, turn string) {
	p.t.Helper()
	p.click(".chat-stop")
	p.waitStatus(chat, turn, wire.TurnStopped)
}

// waitGoneClient waits until the model fixture finished answering req and
// reports whether it stopped because the client went away.
func waitGoneClient(t testing.TB, req *modelfixture.Request) bool {
	t.Helper()
	select {
	case <-req.Done():
		return req.ClientGone()
	case <-time.After(waitTimeout):
		t.Fatalf("the model's answer to request %d did not end within %v", req.N, waitTimeout)
		return false
	}
}
