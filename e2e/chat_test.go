package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/appsfixture"
	"github.com/switchboard-mcp/switchboard/e2e/chatfixture"
	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/models"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// endlessTick is how often an endless answer streams a word.
const endlessTick = 20 * time.Millisecond

// TestChatToolCalls: the model calls the fixture's tools. A question a
// tool asks is answered inside the call's card and nothing of it reaches
// the model but the tool's result; a tool that is not read-only waits for
// the person, who denies it; two calls in one answer run side by side.
func TestChatToolCalls(t *testing.T) {
	w := startChatWorld(t)
	p := w.openChatPage(t)
	t.Run("a form question answered inline", func(t *testing.T) { formQuestionAnsweredInline(t, p.as(t)) })
	t.Run("a denied tool", func(t *testing.T) { deniedTool(t, p.as(t)) })
	t.Run("parallel calls", func(t *testing.T) { parallelCalls(t, p.as(t)) })
}

// The answer the person types into the tool's form; nothing of the form
// may reach the model.
const accountAnswer = "acct-work-7Q"

func formQuestionAnsweredInline(t *testing.T, p *chatPage) {
	const final = "That account has three open invoices; the oldest is due on Friday."
	sc := p.w.script("ask", func(n int, req *modelfixture.Request) modelfixture.Reply {
		if n == 1 {
			return modelfixture.Calls(modelfixture.ToolCall{Name: toolName(t, req, chatfixture.ToolAccount)})
		}
		return modelfixture.Reply{Text: final, Chunk: 3}
	})
	texts := p.watchReceived(`"kind":"` + string(wire.KindChatText) + `"`)
	chat, turn := p.startChat(modelAlpha, "How many invoices are open on my account? "+sc.tag)

	calls := p.waitToolCalls(chat, turn, 1)
	card := toolCardSel(turnSel(chat, turn), calls[0])
	p.waitText(card+" .chat-tool-name", chatfixture.ToolAccount)
	id := p.inlineAsk(chat, turn, calls[0], wire.AskForm)
	if got := p.text(cardSel(id) + " .ask-message"); got != chatfixture.AskMessage {
		t.Errorf("the card inside the call asks %q, the server asked %q", got, chatfixture.AskMessage)
	}
	p.waitToolState(chat, turn, calls[0], wire.ToolRunning)
	p.setField(id, chatfixture.AskField, accountAnswer)
	t.Logf("screenshot: %s", p.screenshot("chat-ask-inline"))
	p.click(cardSel(id) + " .ask-accept")
	p.waitGone(cardSel(id))

	p.waitToolState(chat, turn, calls[0], wire.ToolDone)
	p.waitText(card+" .chat-tool-result", chatfixture.AccountRecord)
	p.waitStatus(chat, turn, wire.TurnDone)
	if got := p.answerText(chat, turn); !strings.Contains(got, final) {
		t.Errorf("the answer shows %q, want %q", got, final)
	}
	if n := texts.count(); n == 0 {
		t.Error("no frame carried the answer's text as it streamed")
	}
	if got := p.w.fx.Answers(); len(got) != 1 || got[0][chatfixture.AskField] != accountAnswer {
		t.Errorf("the server got the answers %v, want %s = %q", got, chatfixture.AskField, accountAnswer)
	}

	second := sc.await(t, 2)[1]
	body := string(second.Body)
	results := toolResults(second)
	if len(results) != 1 || results[0].Content != chatfixture.AccountRecord {
		t.Errorf("the model got the tool results %+v, want the tool's text %q", results, chatfixture.AccountRecord)
	}
	for _, leak := range []string{chatfixture.AskMessage, chatfixture.AskTitle, accountAnswer, "as on an invoice"} {
		if strings.Contains(body, leak) {
			t.Errorf("a request to the model holds %q, which only the form and the person's answer have", leak)
		}
	}
	if n := sc.count(); n != 2 {
		t.Errorf("the model was asked %d times, want 2", n)
	}
}

func deniedTool(t *testing.T, p *chatPage) {
	const final = "Understood: no report was purged."
	sc := p.w.script("deny", func(n int, req *modelfixture.Request) modelfixture.Reply {
		if n == 1 {
			return modelfixture.Calls(modelfixture.ToolCall{Name: toolName(t, req, chatfixture.ToolPurge)})
		}
		return modelfixture.Text(final)
	})
	chat, turn := p.startChat(modelAlpha, "Clean up the reports. "+sc.tag)

	calls := p.waitToolCalls(chat, turn, 1)
	card := toolCardSel(turnSel(chat, turn), calls[0])
	p.waitToolState(chat, turn, calls[0], wire.ToolApproval)
	for _, b := range []string{".chat-run", ".chat-deny", ".chat-always"} {
		if p.count(card+" "+b) != 1 {
			t.Errorf("the card waiting for approval shows no %s", b)
		}
	}
	if n := sc.count(); n != 1 {
		t.Errorf("the model was asked again (%d requests) before the person decided", n)
	}
	p.click(card + " .chat-deny")
	p.waitToolState(chat, turn, calls[0], wire.ToolDenied)
	p.waitStatus(chat, turn, wire.TurnDone)
	p.waitAnswer(chat, turn, final)
	if n := p.w.fx.Purges(); n != 0 {
		t.Errorf("the denied tool ran %d times", n)
	}

	second := sc.await(t, 2)[1]
	results := toolResults(second)
	if len(results) != 1 {
		t.Fatalf("the model got %d tool results after the denial, want 1: %+v", len(results), results)
	}
	if got := strings.ToLower(results[0].Content); !strings.Contains(got, "denied") {
		t.Errorf("the model was told %q, want that the call was denied", results[0].Content)
	}
	if strings.Contains(results[0].Content, chatfixture.Purged) {
		t.Errorf("the model was told %q: the tool's text, though it never ran", results[0].Content)
	}
	if calls := lastAssistant(second).ToolCalls(); len(calls) != 1 || calls[0].ID != results[0].ID {
		t.Errorf("the denial answers %q, the model's call was %+v", results[0].ID, calls)
	}
}

func parallelCalls(t *testing.T, p *chatPage) {
	cities := []string{"Lyon", "Oslo"}
	sc := p.w.script("parallel", func(n int, req *modelfixture.Request) modelfixture.Reply {
		if n == 1 {
			var calls []modelfixture.ToolCall
			for _, c := range cities {
				calls = append(calls, modelfixture.ToolCall{Name: toolName(t, req, chatfixture.ToolWeather),
					Arguments: mustJSON(map[string]string{"city": c})})
			}
			return modelfixture.Calls(calls...)
		}
		return modelfixture.Text("Sunny in both.")
	})
	chat, turn := p.startChat(modelAlpha, "Weather in Lyon and Oslo? "+sc.tag)

	calls := p.waitToolCalls(chat, turn, 2)
	for i, call := range calls {
		card := toolCardSel(turnSel(chat, turn), call)
		p.waitToolState(chat, turn, call, wire.ToolDone)
		p.waitText(card+" .chat-tool-args", cities[i])
		p.waitText(card+" .chat-tool-result", chatfixture.Weather(cities[i]))
	}
	p.waitStatus(chat, turn, wire.TurnDone)
	p.waitAnswer(chat, turn, "Sunny in both.")

	// The relay names the calls its own way: the second request pairs
	// each result with the call it answers.
	second := sc.await(t, 2)[1]
	results := map[string]string{}
	for _, r := range toolResults(second) {
		results[r.ID] = r.Content
	}
	var asked []string
	for _, c := range lastAssistant(second).ToolCalls() {
		var args struct{ City string }
		if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
			t.Errorf("the call %s is sent back with the arguments %s: %v", c.ID, c.Arguments, err)
		}
		asked = append(asked, args.City)
		if got := results[c.ID]; got != chatfixture.Weather(args.City) {
			t.Errorf("the model got %q for its call of %s, want %q", got, args.City, chatfixture.Weather(args.City))
		}
	}
	if !slices.Equal(asked, cities) || len(results) != len(cities) {
		t.Errorf("the second request holds the calls of %v and %d results, want the calls of %v and a result each", asked, len(results), cities)
	}
}

// TestChatStreamIsLiveEverywhereAndStops: an answer that streams on and on
// shows live in a second tab, survives a reload of the first, and ends
// when the person presses Stop, which the model's endpoint sees.
func TestChatStreamIsLiveEverywhereAndStops(t *testing.T) {
	w := startChatWorld(t)
	p := w.openChatPage(t)
	sc := w.script("endless", func(int, *modelfixture.Request) modelfixture.Reply {
		return modelfixture.Reply{Text: "Counting: ", Endless: endlessTick}
	})
	chat, turn := p.startChat(modelAlpha, "Count for ever. "+sc.tag)
	p.waitStatus(chat, turn, wire.TurnRunning)
	p.waitMoreWords(chat, turn, 0)
	req := sc.await(t, 1)[0]

	t.Run("a second tab sees the turn live", func(t *testing.T) {
		other := &chatPage{tab: openTabIn(t, &browser{ctx: p.ctx}), w: w} // same browser context, same cookie
		other.navigate(w.r.URL() + chatPath)
		other.waitRelay(stateLive)
		other.showChat(chat) // from the list, as a person opens it
		other.waitStatus(chat, turn, wire.TurnRunning)
		n := other.waitMoreWords(chat, turn, 0)
		other.waitMoreWords(chat, turn, n)
		if got := other.text(turnSel(chat, turn) + " .chat-user"); !strings.Contains(got, "Count for ever.") {
			t.Errorf("the second tab shows the message %q", got)
		}
	})

	t.Run("a reload keeps the partial answer, which grows on", func(t *testing.T) {
		p := p.as(t)
		before := p.answerText(chat, turn)
		n := p.endlessWords(chat, turn)
		p.do("reload", chromedp.Reload())
		p.waitRelay(stateLive)
		p.showChat(chat)
		p.waitStatus(chat, turn, wire.TurnRunning)
		p.waitJS("the partial answer after the reload", fmt.Sprintf(`%s.startsWith(%s)`,
			answerTextJS(turnSel(chat, turn)), jsString(strings.TrimSpace(before))))
		p.waitMoreWords(chat, turn, n)
	})

	t.Run("stop ends the stream", func(t *testing.T) {
		p := p.as(t)
		p.stopTurn(chat, turn)
		if !waitGoneClient(t, req) {
			t.Error("the model's endpoint did not see the relay go away")
		}
		shown := p.endlessWords(chat, turn)
		if shown == 0 {
			t.Error("the stopped turn lost the text that had streamed")
		}
		if p.count(".chat-stop") != 0 {
			t.Error("the page still offers Stop")
		}
		if n := sc.count(); n != 1 {
			t.Errorf("the model was asked %d times, want once", n)
		}
	})
}

// TestChatRelayRestartMidTurn: a relay that stops while a turn streams
// marks it interrupted; the page offers Retry, which runs it again.
func TestChatRelayRestartMidTurn(t *testing.T) {
	w := startChatWorld(t)
	p := w.openChatPage(t)
	const after = "Here is the answer, after the restart."
	sc := w.script("restart", func(n int, _ *modelfixture.Request) modelfixture.Reply {
		if n == 1 {
			return modelfixture.Reply{Text: "Thinking it over: ", Endless: endlessTick}
		}
		return modelfixture.Text(after)
	})
	chat, turn := p.startChat(modelAlpha, "Tell me something. "+sc.tag)
	p.waitMoreWords(chat, turn, 0)
	req := sc.await(t, 1)[0]

	w.r.stop()
	p.waitRelay(stateReconnecting)
	if !waitGoneClient(t, req) {
		t.Error("the model's endpoint did not see the stopping relay go away")
	}
	w.r.start()
	p.waitRelay(stateLive)
	p.showChat(chat)
	p.waitStatus(chat, turn, wire.TurnInterrupted)
	p.waitPresent(turnSel(chat, turn) + " .chat-retry")
	if got := p.text(turnSel(chat, turn) + " .chat-user"); !strings.Contains(got, "Tell me something.") {
		t.Errorf("the interrupted turn shows the message %q", got)
	}

	p.click(turnSel(chat, turn) + " .chat-retry")
	// The retry runs the turn again in its place.
	retried := waitValue[string](p.tab, "the retried turn", fmt.Sprintf(
		`(t => t && t.dataset.status !== %s ? t.dataset.turn : "")([...document.querySelectorAll(%s)].at(-1))`,
		jsString(string(wire.TurnInterrupted)), jsString(convSel(chat)+" .chat-turn")))
	p.waitStatus(chat, retried, wire.TurnDone)
	p.waitAnswer(chat, retried, after)
	if got := p.count(convSel(chat) + " .chat-turn"); got != 1 {
		t.Errorf("the conversation shows %d turns after the retry, want the retried one alone", got)
	}
	second := sc.await(t, 2)[1]
	if got := lastMessage(t, second); got.Role != "user" || !strings.Contains(got.Text(), "Tell me something.") {
		t.Errorf("the retry asked the model with a last message %s %q, want the person's", got.Role, got.Text())
	}
}

// TestChatCompareTwoModels: one message to two models side by side; each
// answers in its own column.
func TestChatCompareTwoModels(t *testing.T) {
	w := startChatWorld(t)
	p := w.openChatPage(t)
	answers := map[string]string{alphaModel: "Alpha's answer: forty-two.", betaModel: "Beta's answer: six times seven."}
	sc := w.script("compare", func(_ int, req *modelfixture.Request) modelfixture.Reply {
		return modelfixture.Text(answers[req.Model])
	})
	p.click(".chat-new")
	p.waitPresent(".chat-start")
	p.click(".chat-compare-toggle")
	p.waitPresent(".chat-compare-models")
	for _, m := range []string{modelAlpha, modelBeta} {
		box := fmt.Sprintf(`input.chat-compare-model[value=%s]`, jsString(m))
		if !eval[bool](p.tab, fmt.Sprintf(`document.querySelector(%s)?.checked ?? false`, jsString(box))) {
			p.click(box)
			p.waitJS(m+" chosen", fmt.Sprintf(`document.querySelector(%s)?.checked`, jsString(box)))
		}
	}
	p.fill("textarea.chat-input", "What is the answer? "+sc.tag)
	p.click(".chat-send")
	// Each column names its model; which goes first is the page's choice.
	cols := waitValue[[][]string](p.tab, "two conversations side by side",
		`(c => c.length === 2 && c.every(([chat, model]) => chat && model) ? c : null)([...document.querySelectorAll(".chat-compare .chat-conv")].map(c =>
			[c.dataset.chat, c.querySelector(".chat-conv-model")?.textContent ?? ""]))`)
	modelOf := map[string]string{modelAlpha: alphaModel, modelBeta: betaModel}
	var shown []string
	for _, col := range cols {
		chat, model := col[0], col[1]
		shown = append(shown, model)
		if modelOf[model] == "" {
			t.Fatalf("a column shows the model %q", model)
		}
		turn := p.waitNewTurn(chat, nil)
		p.waitStatus(chat, turn, wire.TurnDone)
		p.waitAnswer(chat, turn, answers[modelOf[model]])
	}
	if slices.Sort(shown); !slices.Equal(shown, []string{modelAlpha, modelBeta}) {
		t.Errorf("the columns show the models %v, want %s and %s", shown, modelAlpha, modelBeta)
	}
	type box struct{ Left, Top, Right, Bottom float64 }
	boxes := eval[[]box](p.tab, `[...document.querySelectorAll(".chat-compare .chat-conv")].map(c => {
		const r = c.getBoundingClientRect(); return {Left: r.left, Top: r.top, Right: r.right, Bottom: r.bottom}; })`)
	if len(boxes) != 2 || boxes[0].Right > boxes[1].Left || boxes[1].Top >= boxes[0].Bottom {
		t.Errorf("the two conversations are not side by side: %+v", boxes)
	}
	t.Logf("screenshot: %s", p.screenshot("chat-compare"))

	reqs := sc.await(t, 2)
	got := map[string]modelfixture.Provider{}
	for _, r := range reqs {
		got[r.Model] = r.Provider
	}
	if got[alphaModel] != modelfixture.OpenAI || got[betaModel] != modelfixture.Anthropic || len(got) != 2 {
		t.Errorf("the models asked: %v, want %s over OpenAI's API and %s over Anthropic's", got, alphaModel, betaModel)
	}
}

// pixelServer counts the requests for an image, which a page must never make.
func pixelServer(t *testing.T) (string, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(tinyPNG)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/pixel.png", &hits
}

// tinyPNG is a 1×1 transparent PNG.
var tinyPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// TestChatHostileModelOutputIsInert: markup, script, handlers, a
// javascript: link and a remote image from the model show as inert text:
// nothing runs, nothing is fetched, nothing navigates.
func TestChatHostileModelOutputIsInert(t *testing.T) {
	w := startChatWorld(t)
	p := w.openChatPage(t)
	pixel, hits := pixelServer(t)
	hostile := strings.Join([]string{
		"Plain words first.",
		`<script>window.__pwned = "script"</script>`,
		`<img src="x" onerror="window.__pwned = 'onerror'">`,
		`<a href="https://example.com/" onclick="window.__pwned = 'onclick'">raw link</a>`,
		`<iframe src="` + pixel + `"></iframe>`,
		"[click me](javascript:window.__pwned='link')",
		"![remote](" + pixel + ")",
		"Last words.",
	}, "\n\n")
	sc := w.script("hostile", func(int, *modelfixture.Request) modelfixture.Reply { return modelfixture.Text(hostile) })
	chat, turn := p.startChat(modelAlpha, "Say something dangerous. "+sc.tag)
	p.waitStatus(chat, turn, wire.TurnDone)
	p.waitAnswer(chat, turn, "Last words.")
	text := turnSel(chat, turn) + " .chat-text"

	if got := p.answerText(chat, turn); !strings.Contains(got, "<script>") {
		t.Errorf("the raw HTML is not shown as text: %q", got)
	}
	type found struct {
		Tags     []string `json:"tags"`
		Handlers []string `json:"handlers"`
		Sources  []string `json:"sources"`
		Hrefs    []string `json:"hrefs"`
	}
	f := eval[found](p.tab, fmt.Sprintf(`(() => {
		const all = [...document.querySelectorAll(%[1]s + " *")];
		return {
			tags: all.map(e => e.tagName.toLowerCase()).filter(t => ["script", "iframe", "object", "embed", "style"].includes(t)),
			handlers: all.flatMap(e => [...e.attributes].filter(a => a.name.toLowerCase().startsWith("on")).map(a => e.tagName + " " + a.name)),
			sources: all.filter(e => e.src !== undefined && e.getAttribute("src")).map(e => e.getAttribute("src")),
			hrefs: all.filter(e => e.hasAttribute("href")).map(e => e.getAttribute("href")),
		};
	})()`, jsString(text)))
	if len(f.Tags) > 0 {
		t.Errorf("the answer holds the elements %v", f.Tags)
	}
	if len(f.Handlers) > 0 {
		t.Errorf("elements of the answer carry handlers: %v", f.Handlers)
	}
	for _, src := range f.Sources {
		if !strings.HasPrefix(src, "data:") {
			t.Errorf("an element of the answer loads %q", src)
		}
	}
	for _, href := range f.Hrefs {
		if !strings.HasPrefix(href, "https://") && !strings.HasPrefix(href, "http://") && !strings.HasPrefix(href, "#") {
			t.Errorf("a link of the answer goes to %q", href)
		}
	}

	// The javascript: link's words do nothing when clicked.
	href := eval[string](p.tab, `location.href`)
	type point struct{ X, Y float64 }
	at := eval[point](p.tab, fmt.Sprintf(`(() => {
		const el = [...document.querySelectorAll(%s + " *")].find(e => [...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.data.includes("click me")));
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		return {X: r.left + Math.min(r.width / 2, 20), Y: r.top + r.height / 2};
	})()`, jsString(text)))
	p.do("click the javascript: link's words", chromedp.MouseClickXY(at.X, at.Y))
	// What a click starts (a navigation, a script) is queued behind it: a
	// task after the next frame comes after it.
	evalAwait[bool](p.tab, `new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true))))`)
	if got := eval[string](p.tab, `location.href`); got != href {
		t.Errorf("clicking the javascript: link went to %q", got)
	}
	if got := eval[string](p.tab, `String(window.__pwned ?? "")`); got != "" {
		t.Errorf("the model's output ran script: window.__pwned = %q", got)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the page fetched the remote image %d times", n)
	}
	t.Logf("screenshot: %s", p.screenshot("chat-hostile"))
}

// TestChatWithoutModelSaysHowToConfigureOne: a relay with no model shows
// the Chat view with the one line that says how to configure one.
func TestChatWithoutModelSaysHowToConfigureOne(t *testing.T) {
	r := startRelay(t)
	s, _ := r.openSocket(t, r.sessionCookie(t))
	f := s.op(wire.OpChatModels, struct{}{})
	var res wire.ChatModelsResult
	if err := json.Unmarshal(f.Data, &res); f.Type != wire.TypeResult || err != nil {
		t.Fatalf("chat.models answered %s %s", f.Type, f.Data)
	}
	if len(res.Models) != 0 || res.Help != models.Help {
		t.Errorf("chat.models answered %+v, want no model and the help", res)
	}
	p := openTab(t)
	p.login(r)
	p.click(`#pages a[href="` + chatPath + `"]`)
	p.waitPresent(".chat-help")
	if got := strings.TrimSpace(p.text(".chat-help")); got != res.Help || !strings.Contains(got, "--model") {
		t.Errorf("the help says %q, want the relay's %q, which names --model", got, res.Help)
	}
	if p.count(".chat-send:not([disabled])") != 0 {
		t.Error("the page offers to send a message with no model")
	}
}

// TestAppViewInAChatCard: a tool with an App view, called by the model,
// shows its view in the chat's tool card; what the view gives the model
// (ui/update-model-context) goes with the person's next message, and the
// view's own report reaches its server through the bridge.
func TestAppViewInAChatCard(t *testing.T) {
	w := startChatWorld(t)
	fx := appsfixture.Start(t)
	s, _ := w.r.openSocket(t, w.r.sessionCookie(t))
	s.waitServerState(s.addServer("Views", fx.URL()), wire.StateReady)
	s.dashboard().Close()
	s.c.CloseNow()
	p := w.openChatPage(t)

	sc := w.script("view", func(n int, req *modelfixture.Request) modelfixture.Reply {
		switch n {
		case 1:
			return modelfixture.Calls(modelfixture.ToolCall{Name: toolName(t, req, appsfixture.ModelContext)})
		case 2:
			return modelfixture.Text("Here is the table.")
		}
		return modelfixture.Text("You picked the third row.")
	})
	chat, turn := p.startChat(modelAlpha, "Show me the table. "+sc.tag)
	calls := p.waitToolCalls(chat, turn, 1)
	card := toolCardSel(turnSel(chat, turn), calls[0])
	p.waitToolState(chat, turn, calls[0], wire.ToolApproval)
	p.click(card + " .chat-run")
	sel := card + " " + appViewSel(appsfixture.URI(appsfixture.ModelContext))
	p.waitAttr(sel, "data-state", "ready")
	var out struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	outcome(t, fx, appsfixture.ModelContext, &out)
	if !out.OK {
		t.Fatalf("the view's model context was refused: %s", out.Error)
	}
	p.waitText(sel+" .app-view-notice", "gave the model context")
	p.waitStatus(chat, turn, wire.TurnDone)

	next := p.send(chat, "Which row did I pick?")
	p.waitStatus(chat, next, wire.TurnDone)
	reqs := sc.await(t, 3)
	if got := lastMessage(t, reqs[2]).Text(); !strings.Contains(got, appsfixture.ContextMark) || !strings.HasSuffix(got, "Which row did I pick?") {
		t.Errorf("the model's last message reads %q", got)
	}
	for _, m := range reqs[1].Messages {
		if strings.Contains(string(m.Raw), appsfixture.ContextMark) {
			t.Errorf("the context reached the model before the person's next message: %s", m.Raw)
		}
	}
}

// TestAppViewGetsPartialInputWhileTheModelWritesTheCall holds the model's
// stream in the middle of a call's arguments: the call's card shows its
// view at once, the view gets the arguments written so far
// (tool-input-partial), and once the model goes on and ends, the whole
// arguments (tool-input).
func TestAppViewGetsPartialInputWhileTheModelWritesTheCall(t *testing.T) {
	w := startChatWorld(t)
	fx := appsfixture.Start(t)
	s, _ := w.r.openSocket(t, w.r.sessionCookie(t))
	s.waitServerState(s.addServer("Views", fx.URL()), wire.StateReady)
	s.dashboard().Close()
	s.c.CloseNow()
	p := w.openChatPage(t)

	const args = `{"rows": [1, 2, 3], "title": "Sales"}`
	release := make(chan struct{})
	sc := w.script("partial", func(n int, req *modelfixture.Request) modelfixture.Reply {
		if n == 1 {
			// Held after `{"rows": [1,` (three deltas of four runes).
			return modelfixture.Reply{ToolCalls: []modelfixture.ToolCall{{Name: toolName(t, req, appsfixture.PartialInput), Arguments: args}},
				Chunk: 4, Hold: &modelfixture.Hold{After: 3, Until: release}}
		}
		return modelfixture.Text("Shown.")
	})
	chat, turn := p.startChat(modelAlpha, "Show the sales rows. "+sc.tag)
	calls := p.waitToolCalls(chat, turn, 1)
	card := toolCardSel(turnSel(chat, turn), calls[0])
	sel := card + " " + appViewSel(appsfixture.URI(appsfixture.PartialInput))
	p.waitToolState(chat, turn, calls[0], wire.ToolStreaming)
	// Ready means the view said it is initialized, while the model still
	// writes: the bridge gave it the partial input then.
	p.waitAttr(sel, "data-state", "ready")
	if fx.ReportsOf(appsfixture.PartialInput) != nil {
		t.Fatal("the view reported before the model wrote the whole arguments")
	}
	close(release)

	var out struct {
		Partials []json.RawMessage `json:"partials"`
		Input    json.RawMessage   `json:"input"`
	}
	outcome(t, fx, appsfixture.PartialInput, &out)
	if len(out.Partials) == 0 || string(out.Partials[0]) != `{"rows":[1]}` {
		t.Errorf("the view's partial inputs: %s", out.Partials)
	}
	var got, want any
	json.Unmarshal(out.Input, &got)
	json.Unmarshal([]byte(args), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the view's input is %s, want %s", out.Input, args)
	}
	p.waitToolState(chat, turn, calls[0], wire.ToolApproval)
	p.click(card + " .chat-run")
	p.waitStatus(chat, turn, wire.TurnDone)
}
