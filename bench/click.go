package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
)

// clickCall clicks the tick tool's Call button and resolves with the
// milliseconds until the page shows a new finished result of it, watched by
// a MutationObserver in the page, split into its parts: click to op frame
// sent, op sent to result frame received, result received to shown.
const clickCall = `new Promise((resolve, reject) => {
	const sel = '.call-result[data-tool-name="tick"]';
	const before = new Set([...document.querySelectorAll(sel)].map(e => e.dataset.callId));
	const done = () => [...document.querySelectorAll(sel)].some(e => !before.has(e.dataset.callId) && e.dataset.status === "ok");
	const button = document.querySelector('#tool-panel[data-tool-name="tick"] #tool-call');
	if (!button) { reject(new Error("no Call button for tick")); return; }
	const obs = new MutationObserver(() => {
		if (!done()) return;
		obs.disconnect();
		const end = performance.now(), t = window.__ws || {};
		resolve({Total: end - start, ToSend: t.sent - start, Relay: t.result - t.sent, Render: end - t.result});
	});
	obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
	const start = performance.now();
	button.click();
})`

// wsTimes patches the page's WebSocket, before any page script runs, to
// note when the last tool.call op left and when the last result came in,
// so that a click's time splits into page → relay → page → render.
const wsTimes = `(() => {
	const t = window.__ws = {};
	const send = WebSocket.prototype.send;
	WebSocket.prototype.send = function (d) {
		if (typeof d === "string" && d.includes('"tool.call"')) t.sent = performance.now();
		return send.call(this, d);
	};
	const WS = window.WebSocket;
	window.WebSocket = function (...args) {
		const s = new WS(...args);
		s.addEventListener("message", e => {
			if (typeof e.data === "string" && e.data.includes('"type":"result"')) t.result = performance.now();
		});
		return s;
	};
	window.WebSocket.prototype = WS.prototype;
	Object.setPrototypeOf(window.WebSocket, WS);
})();`

// settled resolves once the page has drawn a frame and then has nothing
// left to do (an idle callback), so that what a click left behind (layout,
// paint, a framework's effects) is not timed in the next click, of either
// page: the two browsers share the machine's cores.
const settled = `new Promise(resolve => requestAnimationFrame(() => requestIdleCallback(() => resolve(true))))`

// freshCalls are the first measured calls, made while the page shows few
// results (warmCalls + freshCalls of them at most).
const freshCalls = 20

// clickFigure times a click on a tool's Call button to its result shown in
// the dashboard, against a direct go-sdk call and against the same click in
// MCP Inspector's web UI (Execute Tool, through Inspector's proxy to the
// same fixture), alternating.
func clickFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
	// Inspector starts and opens its page meanwhile.
	var ip *inspectorPage
	var ipErr error
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		ip, ipErr = openInspectorTick(cfg.chromium, cfg.inspector, b.fixture.URL())
	}()
	defer func() {
		<-opened
		if ip != nil {
			ip.close()
		}
	}()
	direct, err := b.fixture.directClient(ctx)
	if err != nil {
		return nil, err
	}
	defer direct.Close()
	br, err := launch(cfg.chromium)
	if err != nil {
		return nil, err
	}
	defer br.cancel()
	if err := br.onNewDocument(wsTimes); err != nil {
		return nil, err
	}
	login, err := b.relay.loginURL()
	if err != nil {
		return nil, err
	}
	srvRow := `.server-row[data-server-id="` + b.serverID + `"]`
	steps := []struct {
		what string
		do   func() error
	}{
		{"open the dashboard", func() error { return br.run(chromedp.Navigate(login)) }},
		{"live", func() error {
			return br.waitJS("the server ready", `document.querySelector('#relay-status[data-state="live"]') && document.querySelector('`+srvRow+`[data-state="ready"]')`)
		}},
		{"open the server", func() error { return br.run(chromedp.Click(chromedp.CSS(srvRow + " .server-name"))) }},
		{"tools tab", func() error {
			return br.waitJS("the detail", `document.querySelector('#server-detail[data-server-id="`+b.serverID+`"]')`)
		}},
		{"tools", func() error { return br.run(chromedp.Click(chromedp.CSS("#tab-tools"))) }},
		{"tick", func() error {
			return br.run(chromedp.Click(chromedp.CSS(`#server-detail .tool-item[data-tool-name="tick"] .tool-open`)))
		}},
		{"panel", func() error {
			return br.waitJS("the tick panel", `document.querySelector('#tool-panel[data-tool-name="tick"] #tool-call')`)
		}},
		{"arguments", func() error {
			_, err := eval[bool](br, `(() => { const a = document.querySelector("#tool-args"); if (a) { a.value = "{}"; a.dispatchEvent(new Event("input", {bubbles: true})); } return true; })()`)
			return err
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			return nil, fmt.Errorf("%s: %w", s.what, err)
		}
	}
	<-opened
	if ipErr != nil {
		return nil, ipErr
	}
	var dr []time.Duration
	var sc, ic []clickTimes
	for i := range warmCalls + cfg.calls {
		d, err := directCall(ctx, direct)
		if err != nil {
			return nil, err
		}
		var c, r clickTimes
		sb := func() (err error) {
			if c, err = eval[clickTimes](br, clickCall); err != nil {
				return err
			}
			_, err = eval[bool](br, settled)
			return err
		}
		ref := func() (err error) {
			if r, err = ip.click(); err != nil {
				return err
			}
			_, err = eval[bool](ip.br, settled)
			return err
		}
		first, second := sb, ref
		if i%2 == 1 {
			first, second = ref, sb
		}
		if err := first(); err != nil {
			return nil, fmt.Errorf("click %d: %w", i, err)
		}
		if err := second(); err != nil {
			return nil, fmt.Errorf("click %d: %w", i, err)
		}
		if i >= warmCalls {
			dr, sc, ic = append(dr, d), append(sc, c), append(ic, r)
		}
	}
	cr, ir := part(sc, clickTimes.total), part(ic, clickTimes.total)
	n := strconv.Itoa(cfg.calls)
	shown, err := eval[int](br, `document.querySelectorAll(".call-result").length`)
	if err != nil {
		return nil, err
	}
	return []row{
		ratioRow("tool call, click to rendered result in the dashboard, p50 of the first 20 (a page showing few results)", median(cr[:min(len(cr), freshCalls)]), median(dr[:min(len(dr), freshCalls)]), "direct go-sdk", 1.5),
		ratioRow("tool call, click to rendered result, p50 of "+n+" (the page ends up showing "+strconv.Itoa(shown)+" results)", median(cr), median(dr), "direct go-sdk", 1.5),
		ratioRow("tool call, click to rendered result, p99", percentile(cr, 99), percentile(dr, 99), "direct go-sdk", 0),
		ratioRow("tool call, click to rendered result: Switchboard vs MCP Inspector "+inspectorVersion+"'s own click (its UI and proxy, the same fixture), p50 of "+n, median(cr), median(ir), inspectorName, 0.5),
		ratioRow("tool call, click to rendered result: Switchboard vs MCP Inspector "+inspectorVersion+"'s own click, p99", percentile(cr, 99), percentile(ir, 99), inspectorName, 0.5),
		{
			figure:      "where a click's time goes (p50 of each part, all calls)",
			switchboard: fmt.Sprintf("click → op sent %s; op sent → result in page %s; result → shown %s", ms(median(part(sc, clickTimes.toSend))), ms(median(part(sc, clickTimes.relay))), ms(median(part(sc, clickTimes.render)))),
			reference: fmt.Sprintf("%s: click → request to its proxy sent %s; sent → result in page %s; result → shown %s", inspectorName,
				ms(median(part(ic, clickTimes.toSend))), ms(median(part(ic, clickTimes.relay))), ms(median(part(ic, clickTimes.render)))),
		},
	}, nil
}

// clickTimes are a click's milliseconds until its result is shown, split
// into its parts: click to request sent, sent to result received in the
// page, received to shown.
type clickTimes struct{ Total, ToSend, Relay, Render float64 }

func (c clickTimes) total() float64  { return c.Total }
func (c clickTimes) toSend() float64 { return c.ToSend }
func (c clickTimes) relay() float64  { return c.Relay }
func (c clickTimes) render() float64 { return c.Render }

// part is one part of each click, as durations.
func part(cs []clickTimes, f func(clickTimes) float64) []time.Duration {
	var ds []time.Duration
	for _, c := range cs {
		ds = append(ds, millis(f(c)))
	}
	return ds
}
