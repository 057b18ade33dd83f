package web

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// fakeHost records what the bridge asks of the page.
type fakeHost struct {
	posted   []rpcMessage
	calls    []string // tool names called
	reads    []string
	logs     []string
	links    []string
	answer   func(bool)
	heights  []int
	flooded  bool
	contexts []string
	began    bool
	inChat   bool
	modes    []string // display modes asked for
	shown    string   // the mode the fake page shows the view in
}

func (h *fakeHost) post(m rpcMessage) { h.posted = append(h.posted, m) }
func (h *fakeHost) callTool(name string, args json.RawMessage, done func(json.RawMessage, *wire.Error)) {
	h.calls = append(h.calls, name+string(args))
	done(json.RawMessage(`{"content":[]}`), nil)
}
func (h *fakeHost) readResource(uri string, done func(json.RawMessage, *wire.Error)) {
	h.reads = append(h.reads, uri)
	done(nil, &wire.Error{Code: wire.CodeNotFound, Message: "no such resource"})
}
func (h *fakeHost) log(level, logger string, data any) { h.logs = append(h.logs, level+" "+logger) }
func (h *fakeHost) openLink(url string, answer func(bool)) error {
	if !strings.HasPrefix(url, "https://") {
		return errors.New("not https")
	}
	h.links, h.answer = append(h.links, url), answer
	return nil
}
func (h *fakeHost) message(text string) error {
	if !h.inChat {
		return errors.New("this view is not in a conversation")
	}
	return nil
}
func (h *fakeHost) modelContext(text string, done func(*wire.Error)) {
	h.contexts = append(h.contexts, text)
	done(nil)
}
func (h *fakeHost) resize(height int) { h.heights = append(h.heights, height) }
func (h *fakeHost) displayMode(mode string, done func(string)) {
	h.modes = append(h.modes, mode)
	done(orDefault(h.shown, displayInline))
}
func (h *fakeHost) suspend() { h.flooded = true }
func (h *fakeHost) started() { h.began = true }

// take returns what was posted since the last take.
func (h *fakeHost) take() []rpcMessage {
	out := h.posted
	h.posted = nil
	return out
}

func newTestBridge() (*appBridge, *fakeHost) {
	h := &fakeHost{}
	b := &appBridge{host: h, view: wire.AppView{Server: "s1", URI: "ui://v/main", HTML: "<p>hi</p>",
		CSP: wire.AppCSP{ConnectDomains: []string{"https://api.example"}}},
		tool: wire.Tool{Name: "show"}, args: json.RawMessage(`{"q":1}`),
		result: &wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "done"}}},
		ctx:    appContext{Theme: "dark", Locale: "en-GB"}}
	return b, h
}

var t0 = time.Unix(1_700_000_000, 0)

func deliver(b *appBridge, at time.Time, msg string) { b.handle([]byte(msg), at) }

func TestBridgeStartsAViewOnceAndGivesItTheCall(t *testing.T) {
	b, h := newTestBridge()
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}`)
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}`) // forged: ignored
	got := h.take()
	if len(got) != 1 || got[0].Method != mResourceReady || !strings.Contains(string(got[0].Params), `"html":"\u003cp\u003ehi\u003c/p\u003e"`) ||
		!strings.Contains(string(got[0].Params), "https://api.example") {
		t.Fatalf("after proxy-ready twice: %+v", got)
	}

	deliver(b, t0, `{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"protocolVersion":"2026-01-26"}}`)
	got = h.take()
	res, _ := json.Marshal(got[0].Result)
	if len(got) != 1 || string(got[0].ID) != "1" || !strings.Contains(string(res), `"theme":"dark"`) ||
		!strings.Contains(string(res), `"protocolVersion":"`+wire.AppsProtocolVersion+`"`) || !strings.Contains(string(res), `"locale":"en-GB"`) {
		t.Fatalf("initialize answered %+v (%s)", got, res)
	}
	if len(h.calls) != 0 || h.began {
		t.Fatal("the view got the call before it said it is initialized")
	}

	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`)
	got = h.take()
	if !h.began || len(got) != 2 || got[0].Method != mToolInput || string(got[0].Params) != `{"arguments":{"q":1}}` ||
		got[1].Method != mToolResult || !strings.Contains(string(got[1].Params), `"done"`) {
		t.Fatalf("after initialized: %+v", got)
	}
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`)
	if got := h.take(); len(got) != 0 {
		t.Errorf("a second initialized sent %+v", got)
	}
	b.setTheme("light")
	if got := h.take(); len(got) != 1 || got[0].Method != mContextChanged || string(got[0].Params) != `{"theme":"light"}` {
		t.Errorf("a theme change: %+v", got)
	}
}

func TestBridgeAnswersTheViewsRequests(t *testing.T) {
	b, h := newTestBridge()
	h.inChat = false
	for _, c := range []struct {
		msg       string
		wantError int // 0: a result
	}{
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"refresh","arguments":{"x":2}}}`, 0},
		{`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{}}`, rpcInvalidParams},
		{`{"jsonrpc":"2.0","id":"c","method":"resources/read","params":{"uri":"ui://v/other"}}`, rpcRefused},
		{`{"jsonrpc":"2.0","id":"d","method":"ui/open-link","params":{"url":"javascript:alert(1)"}}`, rpcRefused},
		{`{"jsonrpc":"2.0","id":"e","method":"ui/message","params":{"role":"user","content":{"type":"text","text":"hello"}}}`, rpcRefused},
		{`{"jsonrpc":"2.0","id":"f","method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":"g","method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`, 0},
		{`{"jsonrpc":"2.0","id":"h","method":"sampling/createMessage","params":{}}`, rpcMethodNotFound},
		{`{"jsonrpc":"2.0","id":"i","method":"ui/update-model-context","params":{"content":[{"type":"text","text":"row 3"}],"structuredContent":{"row":3}}}`, 0},
		{`{"jsonrpc":"2.0","id":"j","method":"ui/update-model-context","params":{"content":[{"type":"text","text":"` + strings.Repeat("x", wire.MaxAppContext) + `"}],"structuredContent":{"a":1}}}`, rpcInvalidParams},
		{`{"jsonrpc":"2.0","id":"k","method":"ui/update-model-context","params":7}`, rpcInvalidParams},
	} {
		deliver(b, t0, c.msg)
		got := h.take()
		if len(got) != 1 {
			t.Errorf("%s: %d answers", c.msg, len(got))
			continue
		}
		switch {
		case c.wantError == 0 && got[0].Error != nil:
			t.Errorf("%s: error %+v", c.msg, got[0].Error)
		case c.wantError != 0 && (got[0].Error == nil || got[0].Error.Code != c.wantError):
			t.Errorf("%s: answered %+v, want error %d", c.msg, got[0], c.wantError)
		}
	}
	if len(h.contexts) != 1 || h.contexts[0] != "row 3\n{\"row\":3}" {
		t.Errorf("model contexts: %q", h.contexts)
	}
	if len(h.calls) != 1 || h.calls[0] != `refresh{"x":2}` {
		t.Errorf("tool calls: %q", h.calls)
	}

	deliver(b, t0, `{"jsonrpc":"2.0","id":9,"method":"ui/open-link","params":{"url":"https://example.com/"}}`)
	if got := h.take(); len(got) != 0 || len(h.links) != 1 {
		t.Fatalf("a link was answered before the person decided: %+v", got)
	}
	h.answer(false)
	if got := h.take(); len(got) != 1 || got[0].Error == nil || !strings.Contains(got[0].Error.Message, "denied") {
		t.Errorf("a refused link: %+v", got)
	}

	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"height":99999}}`)
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/sandbox-flood","params":{}}`)
	deliver(b, t0, `not json`)
	deliver(b, t0, `{"jsonrpc":"1.0","id":1,"method":"ping"}`)
	if len(h.heights) != 1 || h.heights[0] != maxViewHeight || !h.flooded || len(h.take()) != 0 {
		t.Errorf("heights %v, flooded %v", h.heights, h.flooded)
	}
}

func TestBridgeCapsTheRequestsThatReachTheRelay(t *testing.T) {
	b, h := newTestBridge()
	for i := range 3 * maxViewRequests {
		deliver(b, t0.Add(time.Duration(i)*time.Millisecond), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tick"}}`)
	}
	if len(h.calls) != maxViewRequests {
		t.Errorf("%d calls reached the relay in a second, want %d", len(h.calls), maxViewRequests)
	}
	refused := 0
	for _, m := range h.take() {
		if m.Error != nil && strings.Contains(m.Error.Message, "too often") {
			refused++
		}
	}
	if refused != 2*maxViewRequests {
		t.Errorf("%d calls were refused, want %d", refused, 2*maxViewRequests)
	}
	deliver(b, t0.Add(1100*time.Millisecond), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tick"}}`)
	deliver(b, t0.Add(1100*time.Millisecond), `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if len(h.calls) != maxViewRequests+1 {
		t.Errorf("the next second's call did not reach the relay")
	}
}

// While the model still writes a call's arguments, the view gets each new
// object they stand for as partial input, then the whole arguments once,
// then the result.
func TestBridgeGivesAViewTheArgumentsAsTheyStream(t *testing.T) {
	b, h := newTestBridge()
	b.args, b.result, b.streaming, b.partial = nil, nil, true, `{"city": "Par`
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}`)
	deliver(b, t0, `{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"protocolVersion":"2026-01-26"}}`)
	h.take()
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`)
	if got := h.take(); len(got) != 1 || got[0].Method != mToolPartial || string(got[0].Params) != `{"arguments":{"city":"Par"}}` {
		t.Fatalf("after initialized, mid-stream: %+v", got)
	}
	b.setInput(nil, `{"city": "Paris", "da`, true)
	b.setInput(nil, `{"city": "Paris", "days`, true) // stands for the same object: nothing new
	if got := h.take(); len(got) != 1 || string(got[0].Params) != `{"arguments":{"city":"Paris"}}` {
		t.Fatalf("as the arguments grow: %+v", got)
	}
	b.setInput(json.RawMessage(`{"city":"Paris","days":3}`), "", false)
	b.setInput(json.RawMessage(`{"city":"Paris","days":3}`), "", false)
	if got := h.take(); len(got) != 1 || got[0].Method != mToolInput || string(got[0].Params) != `{"arguments":{"city":"Paris","days":3}}` {
		t.Fatalf("once whole: %+v", got)
	}
	b.setOutcome(&wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "sunny"}}})
	if got := h.take(); len(got) != 1 || got[0].Method != mToolResult {
		t.Fatalf("the result: %+v", got)
	}
}

// While a model writes a call's arguments, the view gets each new object
// they stand for (tool-input-partial), then the whole arguments once
// (tool-input), then the result.
func TestBridgeStreamsPartialInputThenTheWholeArguments(t *testing.T) {
	b, h := newTestBridge()
	b.result = nil
	b.setInput(nil, `{"rows":[1,`, true) // before the view is ready: kept for it
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`)
	if got := h.take(); len(got) != 1 || got[0].Method != mToolPartial || string(got[0].Params) != `{"arguments":{"rows":[1]}}` {
		t.Fatalf("on initialized while streaming: %+v", got)
	}
	b.setInput(nil, `{"rows":[1,2`, true) // half a number: nothing new
	if got := h.take(); len(got) != 0 {
		t.Errorf("an update that adds nothing sent %+v", got)
	}
	b.setInput(nil, `{"rows":[1,23],"title":"Sa`, true)
	if got := h.take(); len(got) != 1 || got[0].Method != mToolPartial || string(got[0].Params) != `{"arguments":{"rows":[1,23],"title":"Sa"}}` {
		t.Errorf("a later update: %+v", got)
	}
	b.setInput(json.RawMessage(`{"rows":[1,23],"title":"Sales"}`), "", false)
	b.setOutcome(&wire.CallToolResult{Content: []wire.Content{{Type: wire.ContentText, Text: "done"}}})
	got := h.take()
	if len(got) != 2 || got[0].Method != mToolInput || string(got[0].Params) != `{"arguments":{"rows":[1,23],"title":"Sales"}}` || got[1].Method != mToolResult {
		t.Fatalf("once the arguments are whole: %+v", got)
	}
	b.setInput(json.RawMessage(`{"rows":[1,23],"title":"Sales"}`), "", false)
	if got := h.take(); len(got) != 0 {
		t.Errorf("the whole arguments again sent %+v", got)
	}
}

// TestBridgeShowsAViewFullScreenWhenThePageLetsIt: the view's request goes
// to the page, which decides; the view gets the mode in force, and each
// change of mode with its container's size once it is initialized.
func TestBridgeShowsAViewFullScreenWhenThePageLetsIt(t *testing.T) {
	b, h := newTestBridge()
	deliver(b, t0, `{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"protocolVersion":"2026-01-26"}}`)
	res, _ := json.Marshal(h.take()[0].Result)
	if !strings.Contains(string(res), `"availableDisplayModes":["inline","fullscreen"]`) || !strings.Contains(string(res), `"displayMode":"inline"`) {
		t.Errorf("initialize: %s", res)
	}

	// Refused by the page (say, the view does not have the person's focus).
	deliver(b, t0, `{"jsonrpc":"2.0","id":2,"method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`)
	if got := h.take(); len(got) != 1 || got[0].Error != nil || string(mustJSON(got[0].Result)) != `{"mode":"inline"}` {
		t.Errorf("a refused request answered %+v", got)
	}
	h.shown = displayFullscreen
	deliver(b, t0, `{"jsonrpc":"2.0","id":3,"method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`)
	if got := h.take(); len(got) != 1 || string(mustJSON(got[0].Result)) != `{"mode":"fullscreen"}` {
		t.Errorf("a granted request answered %+v", got)
	}
	if len(h.modes) != 2 || h.modes[1] != displayFullscreen {
		t.Errorf("the page was asked for %v", h.modes)
	}
	deliver(b, t0, `{"jsonrpc":"2.0","id":4,"method":"ui/request-display-mode","params":{}}`)
	if got := h.take(); len(got) != 1 || got[0].Error == nil || got[0].Error.Code != rpcInvalidParams {
		t.Errorf("a request without a mode answered %+v", got)
	}

	// Not initialized yet: the mode is kept for ui/initialize, not sent.
	b.setDisplay(displayFullscreen, 1200, 700)
	if got := h.take(); len(got) != 0 {
		t.Errorf("sent to a view not initialized: %+v", got)
	}
	deliver(b, t0, `{"jsonrpc":"2.0","method":"ui/notifications/initialized"}`)
	h.take()
	b.setDisplay(displayInline, 0, 0)
	got := h.take()
	if len(got) != 1 || got[0].Method != mContextChanged || string(got[0].Params) != `{"containerDimensions":{"maxHeight":2000},"displayMode":"inline"}` {
		t.Errorf("back inline: %+v", got)
	}
	b.setDisplay(displayFullscreen, 1200, 700)
	got = h.take()
	if len(got) != 1 || string(got[0].Params) != `{"containerDimensions":{"height":700,"width":1200},"displayMode":"fullscreen"}` {
		t.Errorf("full screen: %+v", got)
	}
	b.setDisplay(displayFullscreen, 1200, 700)
	if got := h.take(); len(got) != 0 {
		t.Errorf("told the same display again: %+v", got)
	}
}
