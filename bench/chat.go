package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/modelfixture"
	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The chat's figures: time to first token through the relay, and an
// answer streaming into the dashboard at a steady pace. The model is the
// e2e model fixture (OpenAI's streaming chat completions) in the harness.
const (
	// ttftLatency is the fixture model's time to its first byte, on every
	// path alike.
	ttftLatency = 50 * time.Millisecond
	// ttftFirst is the fixture's answer to a time-to-first-token message;
	// it streams in pieces of ttftPiece runes.
	ttftFirst = "Hello from the fixture model."
	ttftPiece = 4
	// streamTick is the pace of the streaming answer: a word every 10 ms,
	// 100 tokens a second.
	streamTick = 10 * time.Millisecond
	// streamMessage starts the streaming answer; any other message gets
	// ttftFirst.
	streamMessage = "stream"
	// frameTarget and lagTarget are the stream's targets: the page's frame
	// time p99, and the time from a word's arrival in the page to the frame
	// that shows it.
	frameTarget = 50 * time.Millisecond
	lagTarget   = 200 * time.Millisecond
	// lagWait bounds how long the page waits for the last word to show.
	lagWait = time.Second
)

// chatProbe patches the page's WebSocket, before any page script runs, to
// note when the last chat.send op left (window.__chat.sent) and the first
// chat_text change came in after it (firstText), and when each word of a
// streaming answer arrives: window.__chat.arrive[k] is when the k-th word
// (counted in the chat_text changes, from the moment on is set) came in.
var chatProbe = fmt.Sprintf(`(() => {
	const st = window.__chat = {on: false, text: "", arrive: [], sent: 0, firstText: 0};
	const send = WebSocket.prototype.send;
	WebSocket.prototype.send = function (d) {
		if (typeof d === "string" && d.includes('"%s"')) { st.sent = performance.now(); st.firstText = 0; }
		return send.call(this, d);
	};
	const WS = window.WebSocket;
	window.WebSocket = function (...args) {
		const s = new WS(...args);
		s.addEventListener("message", e => {
			if (typeof e.data !== "string" || !e.data.includes('"%s"')) return;
			const now = performance.now();
			if (st.sent && !st.firstText) st.firstText = now;
			if (!st.on) return;
			let f;
			try { f = JSON.parse(e.data); } catch { return; }
			for (const c of (f.data && f.data.changes) || []) {
				if (c.kind === "%s" && c.value && c.value.kind === "%s") st.text += c.value.text;
			}
			const n = (st.text.match(/%s/g) || []).length;
			while (st.arrive.length < n) st.arrive.push(now);
		});
		return s;
	};
	window.WebSocket.prototype = WS.prototype;
	Object.setPrototypeOf(window.WebSocket, WS);
})();`, wire.OpSendChat, wire.KindChatText, wire.KindChatText, wire.PartText, streamWord)

// streamWord is the word the fixture's endless answer repeats.
var streamWord = strings.TrimSpace(modelfixture.EndlessToken)

// lastTurnText is JavaScript: the answer text of the last turn shown.
const lastTurnText = `(() => {
	const turns = document.querySelectorAll(".chat-turn");
	const t = turns[turns.length - 1];
	return t ? [...t.querySelectorAll(".chat-text")].map(e => e.textContent).join("") : "";
})()`

// sendAndTime types a message, presses Send once the page took it, and
// resolves with the milliseconds until a new turn shows the answer's first
// piece, watched by a MutationObserver, split into its parts: Send to the
// op sent, the op sent to the first text change in, that change to shown.
var sendAndTime = `(async (text, first) => {
	const input = document.querySelector("textarea.chat-input");
	input.value = text;
	input.dispatchEvent(new Event("input", {bubbles: true}));
	await new Promise(r => requestAnimationFrame(() => setTimeout(r)));
	const turns = () => [...document.querySelectorAll(".chat-turn")];
	const before = new Set(turns().map(t => t.dataset.turn));
	const shown = () => turns().some(t => !before.has(t.dataset.turn) &&
		[...t.querySelectorAll(".chat-text")].some(e => e.textContent.includes(first)));
	return await new Promise(resolve => {
		const obs = new MutationObserver(() => {
			if (!shown()) return;
			obs.disconnect();
			const end = performance.now(), st = window.__chat;
			resolve({Total: end - start, ToSend: st.sent - start, Relay: st.firstText - st.sent, Render: end - st.firstText});
		});
		obs.observe(document.body, {subtree: true, childList: true, characterData: true});
		const start = performance.now();
		document.querySelector(".chat-send").click();
	});
})`

// streamRun measures the page while the answer streams, for ms
// milliseconds of frames: every frame's time, when each word showed (the
// first frame whose DOM held it), and when each arrived; then it waits, up
// to wait ms more, for the words that arrived to show.
const streamRun = `((ms, wait) => new Promise(resolve => {
	const st = window.__chat;
	const frames = [], shown = [];
	let last = null, target = -1, end = 0;
	const start = performance.now();
	const frame = () => {
		const now = performance.now();
		const n = (` + lastTurnText + `.match(/WORD/g) || []).length;
		while (shown.length < n) shown.push(now);
		if (target < 0) {
			if (last !== null) frames.push(now - last);
			last = now;
			if (now - start >= ms) { target = st.arrive.length; end = now; }
		}
		if (target >= 0 && (shown.length >= target || now - end > wait)) {
			st.on = false;
			resolve({Frames: frames, Arrive: st.arrive.slice(), Shown: shown, Start: start, End: end});
			return;
		}
		requestAnimationFrame(frame);
	};
	requestAnimationFrame(frame);
}))`

// streamResult is what streamRun resolves with, in milliseconds of the
// page's clock, and the share of the time the page's main thread was busy.
type streamResult struct {
	Frames, Arrive, Shown []float64
	Start, End            float64
	Busy                  float64
}

// pageBusy is how long, in seconds, the page's main thread has run tasks
// (the DevTools protocol's TaskDuration: scripts, style, layout, paint).
func pageBusy(br *browser) (float64, error) {
	var busy float64
	err := br.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, performance.Enable, performance.EnableParams{}); err != nil {
			return err
		}
		res, err := cdp.Call(ctx, t, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			return err
		}
		for _, m := range res.Metrics {
			if m.Name == "TaskDuration" {
				busy = m.Value
			}
		}
		return nil
	}))
	return busy, err
}

// profilePage starts a DevTools CPU profile of the page when the harness
// writes profiles; the function it returns writes it to
// profileDir/name.cpuprofile (which DevTools' Performance panel opens).
func profilePage(br *browser) (func(name string) error, error) {
	if profileDir == "" {
		return func(string) error { return nil }, nil
	}
	err := br.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, profiler.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, profiler.Start, cdp.Empty{})
		return err
	}))
	if err != nil {
		return nil, fmt.Errorf("profile the page: %w", err)
	}
	return func(name string) error {
		var p *profiler.Profile
		err := br.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			res, err := cdp.Call(ctx, t, profiler.Stop, cdp.Empty{})
			p = res.Profile
			return err
		}))
		if err != nil {
			return fmt.Errorf("profile the page: %w", err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(profileDir, name+".cpuprofile"), b, 0o644)
	}, nil
}

// chatModel answers the harness's chat: a stream for streamMessage, else
// ttftFirst after ttftLatency.
func chatModel(req *modelfixture.Request) modelfixture.Reply {
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Text() == streamMessage {
		return modelfixture.Reply{Endless: streamTick}
	}
	return modelfixture.Reply{Text: ttftFirst, Chunk: ttftPiece, Latency: ttftLatency}
}

// chatFigure measures the chat: time to first token in the dashboard and
// through the relay alone against the fixture model called directly, and
// a 100 tokens/s answer rendered in the dashboard.
func chatFigure(ctx context.Context, cfg config) ([]row, error) {
	var mu sync.Mutex
	var unscripted []string
	m, stopModel, err := modelfixture.Run(modelfixture.Options{Decide: chatModel}, func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		unscripted = append(unscripted, fmt.Sprintf(format, args...))
	})
	if err != nil {
		return nil, err
	}
	defer stopModel()
	r, err := startRelayWithModel(m.OpenAIURL())
	if err != nil {
		return nil, err
	}
	defer r.stop()
	direct, err := llm.New(llm.Config{Kind: llm.OpenAI, URL: m.OpenAIURL(), Model: modelfixture.DefaultModel, HTTPClient: &http.Client{}})
	if err != nil {
		return nil, err
	}
	token, err := r.token()
	if err != nil {
		return nil, err
	}
	dash, err := dialSocket(ctx, r, token)
	if err != nil {
		return nil, fmt.Errorf("dashboard socket: %w", err)
	}
	wsChat, err := dash.createChat(ctx)
	dash.close()
	if err != nil {
		return nil, err
	}
	br, err := launch(cfg.chromium)
	if err != nil {
		return nil, err
	}
	defer br.cancel()
	if err := openChat(br, r); err != nil {
		return nil, err
	}

	var dr, wr, pr, toSend, relay, render []time.Duration
	for i := range warmCalls/2 + cfg.chatRounds {
		d, err := directFirstToken(ctx, direct)
		if err != nil {
			return nil, fmt.Errorf("direct: %w", err)
		}
		w, err := relayFirstToken(ctx, r, token, wsChat, fmt.Sprintf("ttft %d", i))
		if err != nil {
			return nil, fmt.Errorf("relay: %w", err)
		}
		p, err := pageFirstToken(br, fmt.Sprintf("ttft %d", i))
		if err != nil {
			return nil, fmt.Errorf("dashboard: %w", err)
		}
		if i >= warmCalls/2 {
			dr, wr, pr = append(dr, d), append(wr, w), append(pr, millis(p.Total))
			toSend, relay, render = append(toSend, millis(p.ToSend)), append(relay, millis(p.Relay)), append(render, millis(p.Render))
		}
	}
	stream, err := pageStream(br, cfg.streamFor, cfg.streamAfter)
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unscripted) > 0 {
		return nil, errors.New(unscripted[0])
	}
	n := fmt.Sprint(cfg.chatRounds)
	ref := fmt.Sprintf("llm client straight to the fixture model (first byte after %v)", ttftLatency)
	return append([]row{
		ratioRow("chat: time to first token through the relay (Go WebSocket: chat.send → the answer's first text change), p50 of "+n, median(wr), median(dr), ref, 1.1),
		ratioRow("chat: time to first token through the relay, p99", percentile(wr, 99), percentile(dr, 99), ref, 0),
		ratioRow("chat: time to first token in the dashboard (Send → the first words shown), p50", median(pr), median(dr), ref, 0),
		ratioRow("chat: time to first token in the dashboard, p99", percentile(pr, 99), percentile(dr, 99), ref, 0),
		{
			figure: "where the dashboard's first token goes (p50 of each part; go-app renders a frame 8.3 ms after the first change)",
			switchboard: fmt.Sprintf("Send → op sent %s; op sent → first text change in the page %s; → shown %s",
				ms(median(toSend)), ms(median(relay)), ms(median(render))),
		},
	}, stream.rows(cfg.streamFor, cfg.streamAfter)...), nil
}

// openChat logs the browser in and opens the Chat view, on a new
// conversation with the one model, which the first message starts.
func openChat(br *browser, r *relayProc) error {
	if err := br.onNewDocument(chatProbe); err != nil {
		return err
	}
	login, err := r.loginURL()
	if err != nil {
		return err
	}
	steps := []struct {
		what string
		do   func() error
	}{
		{"log in", func() error { return br.run(chromedp.Navigate(login)) }},
		{"live", func() error {
			return br.waitJS("the relay live", `document.querySelector('#relay-status[data-state="live"]')`)
		}},
		{"open the chat", func() error { return br.run(chromedp.Navigate(r.URL() + "/chat")) }},
		{"the chat", func() error {
			return br.waitJS("the chat view", `document.querySelector('#relay-status[data-state="live"]') && document.querySelector(".chat-new")`)
		}},
		{"its input", func() error { return br.waitJS("the message box", `document.querySelector("textarea.chat-input")`) }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	return nil
}

// turnsDone is JavaScript: no turn shown runs, and Send is offered.
const turnsDone = `[...document.querySelectorAll(".chat-turn")].every(t => t.dataset.status !== "running") &&
	document.querySelector(".chat-send") !== null`

// firstShown is the time from Send to the answer's first piece shown, and
// its parts, in milliseconds of the page's clock.
type firstShown struct{ Total, ToSend, Relay, Render float64 }

// pageFirstToken sends text from the page and times Send to the first
// piece of the answer shown, then waits for the turn to end.
func pageFirstToken(br *browser, text string) (firstShown, error) {
	if err := br.waitJS("the last turn's end", turnsDone); err != nil {
		return firstShown{}, err
	}
	v, err := eval[firstShown](br, fmt.Sprintf(`%s(%s, %s)`, sendAndTime, jsq(text), jsq(string([]rune(ttftFirst)[:ttftPiece]))))
	if err != nil {
		return firstShown{}, err
	}
	return v, br.waitJS("the turn's end", turnsDone)
}

// pageStream sends streamMessage from the page and measures the page for
// d while the answer streams, from after (the answer's length then), then
// stops it.
func pageStream(br *browser, d, after time.Duration) (streamResult, error) {
	if err := br.waitJS("the last turn's end", turnsDone); err != nil {
		return streamResult{}, err
	}
	if _, err := eval[bool](br, `(window.__chat.on = true, window.__chat.text = "", window.__chat.arrive = [], true)`); err != nil {
		return streamResult{}, err
	}
	if _, err := eval[firstShown](br, fmt.Sprintf(`%s(%s, %s)`, sendAndTime, jsq(streamMessage), jsq(streamWord))); err != nil {
		return streamResult{}, err
	}
	run := strings.ReplaceAll(streamRun, "WORD", streamWord)
	time.Sleep(after) // the answer grows meanwhile: there is nothing to wait for
	busyBefore, err := pageBusy(br)
	if err != nil {
		return streamResult{}, err
	}
	stopProfile, err := profilePage(br)
	if err != nil {
		return streamResult{}, err
	}
	start := time.Now()
	res, err := eval[streamResult](br, fmt.Sprintf(`%s(%d, %d)`, run, d.Milliseconds(), lagWait.Milliseconds()))
	if err != nil {
		return streamResult{}, err
	}
	if err := stopProfile("chat-page"); err != nil {
		return streamResult{}, err
	}
	busyAfter, err := pageBusy(br)
	if err != nil {
		return streamResult{}, err
	}
	res.Busy = (busyAfter - busyBefore) / time.Since(start).Seconds()
	// The figures are taken; stopping is the page's last step. A page that
	// fell behind the stream (a loaded machine) may not answer in time:
	// the relay is stopped after this figure anyway, so that is no error.
	eval[bool](br, `(document.querySelector(".chat-stop")?.click(), true)`)
	return res, nil
}

// rows are the stream's rows: frame time, and words' arrival to shown.
func (s streamResult) rows(d, after time.Duration) []row {
	var frames, lags []time.Duration
	for _, f := range s.Frames {
		frames = append(frames, millis(f))
	}
	words := 0
	last := time.Duration(-1)
	for k, a := range s.Arrive {
		if a < s.Start || a > s.End {
			continue // before the window, it may have shown before the frames were watched
		}
		words++
		if k >= len(s.Shown) {
			last = -1 // never shown within lagWait
			continue
		}
		lag := millis(s.Shown[k] - a)
		lags = append(lags, lag)
		last = lag
	}
	rate := float64(words) / (s.End - s.Start) * 1000
	p99 := percentile(frames, 99)
	frameRow := row{
		figure:      fmt.Sprintf("chat: a 100 tokens/s answer streaming into the dashboard, frame time p99 (%v, %d frames)", d, len(frames)),
		switchboard: ms(p99),
		reference:   fmt.Sprintf("p50 %s; %.0f tokens/s arrived in the page", ms(median(frames)), rate),
		target:      "< " + ms(frameTarget),
		verdict:     map[bool]string{true: "met", false: "NOT met"}[p99 < frameTarget && len(frames) > 0],
	}
	lastRow := row{
		figure:    "chat: the stream's last word shown, after its arrival in the page",
		reference: fmt.Sprintf("p99 over the %d words of the window %s", len(lags), ms(percentile(lags, 99))),
		target:    "≤ " + ms(lagTarget),
	}
	if last < 0 {
		lastRow.switchboard = "not shown within " + ms(lagWait)
		lastRow.verdict = "NOT met"
	} else {
		lastRow.switchboard = ms(last)
		lastRow.verdict = verdict(float64(last), float64(lagTarget))
	}
	busyRow := row{
		figure:      "chat: the page's main thread busy while the answer streams (share of the window" + grown(after) + "; the harness's own frame loop included)",
		switchboard: fmt.Sprintf("%.0f%%", 100*s.Busy),
	}
	return []row{frameRow, lastRow, busyRow}
}

// directFirstToken times the fixture model's first text, asked straight
// with the llm client, and reads the answer to its end.
func directFirstToken(ctx context.Context, c *llm.Client) (time.Duration, error) {
	req := &llm.Request{Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{llm.TextPart("ttft")}}}}
	start := time.Now()
	var first time.Duration
	for ev, err := range c.Stream(ctx, req) {
		if err != nil {
			return 0, err
		}
		if ev.Type == llm.EventText && first == 0 {
			first = time.Since(start)
		}
	}
	if first == 0 {
		return 0, errors.New("the model answered no text")
	}
	return first, nil
}

// createChat starts a conversation with the one model and returns its id.
func (s *socket) createChat(ctx context.Context) (string, error) {
	f, err := s.op(ctx, wire.OpCreateChat, wire.CreateChatArgs{Models: []string{benchModel}, Title: "bench"})
	if err != nil {
		return "", err
	}
	var res wire.CreateChatResult
	if err := json.Unmarshal(f.Data, &res); err != nil {
		return "", err
	}
	if len(res.Chats) != 1 {
		return "", fmt.Errorf("chat.create made %d conversations", len(res.Chats))
	}
	return res.Chats[0].ID, nil
}

// relayFirstToken measures one first token through a Go dashboard that
// lives only while it reads: a socket left idle while the page's round runs
// would leave the relay's pings unanswered (the client answers them only
// while reading), and the relay closes such a socket.
func relayFirstToken(ctx context.Context, r *relayProc, token, chat, text string) (time.Duration, error) {
	dash, err := dialSocket(ctx, r, token)
	if err != nil {
		return 0, fmt.Errorf("dashboard socket: %w", err)
	}
	defer dash.close()
	return dash.firstToken(ctx, chat, text)
}

// firstToken sends text to the conversation chat and times the op's frame
// out to the first change that appends to the answer's text; then it reads
// until the turn ends (a chat_end change, or the whole turn put again).
func (s *socket) firstToken(ctx context.Context, chat, text string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, pageTimeout)
	defer cancel()
	f, err := wire.Op("ttft-"+fmt.Sprint(s.ids.Add(1)), wire.OpSendChat, wire.SendChatArgs{Chat: chat, Text: text})
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := s.send(ctx, f); err != nil {
		return 0, err
	}
	var first time.Duration
	for {
		_, got, err := s.read(ctx)
		if err != nil {
			return 0, err
		}
		switch {
		case got.ID == f.ID && got.Type == wire.TypeError:
			return 0, fmt.Errorf("chat.send: %s", got.Error.Message)
		case got.Type != wire.TypeDelta:
			continue
		}
		var d wire.Delta
		if err := json.Unmarshal(got.Data, &d); err != nil {
			return 0, err
		}
		for _, c := range d.Changes {
			if c.Key != chat {
				continue
			}
			switch c.Kind {
			case wire.KindChatText:
				var v wire.ChatText
				if json.Unmarshal(c.Value, &v) == nil && v.Kind == wire.PartText && first == 0 {
					first = time.Since(start)
				}
			case wire.KindChatEnd, wire.KindChatTurn: // the turn ends by either
				var v struct {
					Status wire.TurnStatus `json:"status"`
					Error  string          `json:"error"`
					Parts  []wire.ChatPart `json:"parts"`
				}
				if err := json.Unmarshal(c.Value, &v); err != nil {
					return 0, err
				}
				// A socket that fell behind gets the whole turn put again
				// in place of the changes it missed: its text counts too.
				if first == 0 && slices.ContainsFunc(v.Parts, func(p wire.ChatPart) bool { return p.Kind == wire.PartText && p.Text != "" }) {
					first = time.Since(start)
				}
				switch {
				case v.Status == wire.TurnRunning:
					continue
				case v.Status != wire.TurnDone:
					return 0, fmt.Errorf("the turn ended %s: %s", v.Status, v.Error)
				case first == 0:
					return 0, errors.New("the turn ended without a text change")
				}
				return first, nil
			}
		}
	}
}

// grown says how long the answer had streamed before the window, if at all.
func grown(after time.Duration) string {
	if after == 0 {
		return ""
	}
	return ", after the answer streamed " + after.String()
}

// jsq quotes s as a JavaScript string literal.
func jsq(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
