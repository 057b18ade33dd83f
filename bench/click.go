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
// a MutationObserver in the page.
const clickCall = `new Promise((resolve, reject) => {
	const sel = '.call-result[data-tool-name="tick"]';
	const before = new Set([...document.querySelectorAll(sel)].map(e => e.dataset.callId));
	const done = () => [...document.querySelectorAll(sel)].some(e => !before.has(e.dataset.callId) && e.dataset.status === "ok");
	const button = document.querySelector('#tool-panel[data-tool-name="tick"] #tool-call');
	if (!button) { reject(new Error("no Call button for tick")); return; }
	const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(performance.now() - start); } });
	obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
	const start = performance.now();
	button.click();
})`

// clickFigure times a click on a tool's Call button to its result shown in
// the dashboard, against a direct go-sdk call, alternating.
func clickFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
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
	var dr, cr []time.Duration
	for i := range warmCalls + cfg.calls {
		d, err := directCall(ctx, direct)
		if err != nil {
			return nil, err
		}
		c, err := eval[float64](br, clickCall)
		if err != nil {
			return nil, fmt.Errorf("click %d: %w", i, err)
		}
		if i >= warmCalls {
			dr, cr = append(dr, d), append(cr, millis(c))
		}
	}
	n := strconv.Itoa(cfg.calls)
	return []row{
		ratioRow("tool call, click to rendered result in the dashboard, p50 of "+n, median(cr), median(dr), "direct go-sdk", 1.5),
		ratioRow("tool call, click to rendered result, p99", percentile(cr, 99), percentile(dr, 99), "direct go-sdk", 0),
	}, nil
}
