package main

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// A page's readiness, as JavaScript expressions: visible when the list a
// person came for shows, interactive when it also answers input.
type readiness struct {
	name        string
	visible     string
	interactive string
	// settled is what the first screen shows once complete; a change after
	// which it no longer holds is a blink.
	settled string
}

var (
	switchboardReady = readiness{
		name:        "Switchboard",
		visible:     `document.querySelector('.server-row[data-state="ready"]') !== null`,
		interactive: `document.querySelector('#relay-status[data-state="live"]') !== null && document.querySelector('.server-row[data-state="ready"]') !== null`,
		settled:     `document.querySelector('.server-row[data-state="ready"]') !== null && document.querySelector('#server-detail') !== null`,
	}
	// Inspector's connect screen: its server cards with their connection
	// status and connect switch; React renders them with their handlers.
	inspectorReady = readiness{
		name:        "MCP Inspector " + inspectorVersion,
		visible:     `document.querySelector('[data-testid="connection-status"]') !== null`,
		interactive: `document.querySelector('[data-testid="connection-status"]') !== null`,
		settled:     `document.querySelector('[data-testid="connection-status"]') !== null`,
	}
)

// observer records, in the page, when readiness is first reached, measured
// from the navigation's start (performance.now()), checking after every DOM
// change, so that both pages are timed the same way and without polling. It
// also counts the times the settled first screen came apart again (blinks).
func observer(r readiness) string {
	return fmt.Sprintf(`(() => {
	const m = window.__bench = {};
	const check = () => {
		const now = performance.now();
		if (m.visible === undefined && (%s)) m.visible = now;
		if (m.interactive === undefined && (%s)) m.interactive = now;
		const settled = %s;
		if (settled) m.settled = true;
		else if (m.settled) { m.blinks = (m.blinks || 0) + 1; m.settled = false; }
	};
	new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
	document.addEventListener("DOMContentLoaded", check);
})();`, r.visible, r.interactive, r.settled)
}

// load is one page load's figures.
type load struct {
	visible, interactive time.Duration
	bytes                int64
	blinks               int // times the settled first screen came apart again
	// Milestones of Switchboard's load, from the navigation's start: the
	// page received, app.wasm received, the wasm's first screen drawn.
	html, wasm, drawn time.Duration
}

// milestones reads when the page and app.wasm arrived and when the wasm
// drew its first screen (the dashboard's performance mark).
const milestones = `(() => {
	const nav = performance.getEntriesByType("navigation")[0];
	const wasm = performance.getEntriesByType("resource").find(e => e.name.endsWith("/app.wasm"));
	const mark = performance.getEntriesByName("switchboard:servers-rendered", "mark")[0];
	return {HTML: nav ? nav.responseEnd : 0, Wasm: wasm ? wasm.responseEnd : 0, Drawn: mark ? mark.startTime : 0};
})()`

// loads are a side's figures over the rounds.
type loads struct {
	cold, warm []load
}

// swReady waits for the page's service worker, if it registers one, for
// at most two seconds, so that the warm load meets what a second visit meets.
const swReady = `Promise.race([
	navigator.serviceWorker ? navigator.serviceWorker.getRegistration().then(r => r ? navigator.serviceWorker.ready.then(() => true) : false) : false,
	new Promise(resolve => setTimeout(() => resolve(false), 2000)),
])`

// measureLoads opens url in a fresh profile (cold), then reloads (warm).
func measureLoads(chromium, url string, r readiness) (cold, warm load, err error) {
	b, err := launch(chromium)
	if err != nil {
		return load{}, load{}, err
	}
	defer b.cancel()
	if err := b.onNewDocument(observer(r)); err != nil {
		return load{}, load{}, err
	}
	b.resetBytes()
	if err := b.run(chromedp.Navigate(url)); err != nil {
		return load{}, load{}, err
	}
	if cold, err = b.readiness(r); err != nil {
		return load{}, load{}, fmt.Errorf("%s cold: %w", r.name, err)
	}
	if _, err := eval[bool](b, swReady); err != nil {
		return load{}, load{}, err
	}
	b.resetBytes()
	if err := b.run(chromedp.Reload()); err != nil {
		return load{}, load{}, err
	}
	if warm, err = b.readiness(r); err != nil {
		return load{}, load{}, fmt.Errorf("%s warm: %w", r.name, err)
	}
	return cold, warm, nil
}

// readiness waits until the page is interactive and returns its figures.
func (b *browser) readiness(r readiness) (load, error) {
	if err := b.waitJS(r.name+" ready", `window.__bench && window.__bench.visible !== undefined && window.__bench.interactive !== undefined`); err != nil {
		return load{}, err
	}
	v, err := eval[struct {
		Visible, Interactive float64
		Blinks               int
	}](b, `({Visible: window.__bench.visible, Interactive: window.__bench.interactive, Blinks: window.__bench.blinks || 0})`)
	if err != nil {
		return load{}, err
	}
	l := load{visible: millis(v.Visible), interactive: millis(v.Interactive), bytes: b.resetBytes(), blinks: v.Blinks}
	if r.name == switchboardReady.name {
		m, err := eval[struct{ HTML, Wasm, Drawn float64 }](b, milestones)
		if err != nil {
			return load{}, err
		}
		l.html, l.wasm, l.drawn = millis(m.HTML), millis(m.Wasm), millis(m.Drawn)
	}
	return l, nil
}

func millis(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// firstRenderFigure loads the dashboard and MCP Inspector alternately, each
// round in fresh profiles, cold then warm.
func firstRenderFigure(ctx context.Context, cfg config) ([]row, error) {
	b, err := setUp(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer b.close()
	in, err := startInspector(cfg.inspector)
	if err != nil {
		return nil, err
	}
	defer in.stop()

	var sb, ref loads
	measure := func(side *loads, url string, r readiness) error {
		cold, warm, err := measureLoads(cfg.chromium, url, r)
		if err != nil {
			return err
		}
		side.cold, side.warm = append(side.cold, cold), append(side.warm, warm)
		return nil
	}
	for i := range cfg.rounds {
		login, err := b.relay.loginURL()
		if err != nil {
			return nil, err
		}
		first, second := func() error { return measure(&sb, login, switchboardReady) }, func() error { return measure(&ref, in.url, inspectorReady) }
		if i%2 == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return nil, err
		}
		if err := second(); err != nil {
			return nil, err
		}
	}
	refName := inspectorReady.name
	rows := []row{
		ratioRow(fmt.Sprintf("first render, cold (fresh profile; median of %d)", cfg.rounds), med(sb.cold, visible), med(ref.cold, visible), refName, 0.5),
		ratioRow("first render, warm (reload)", med(sb.warm, visible), med(ref.warm, visible), refName, 0.5),
		ratioRow("time to interactive, cold", med(sb.cold, interactive), med(ref.cold, interactive), refName, 0),
		ratioRow("time to interactive, warm", med(sb.warm, interactive), med(ref.warm, interactive), refName, 0),
	}
	rows = append(rows[:4], append([]row{{
		figure: "where Switchboard's cold load goes (medians, from navigation start)",
		switchboard: fmt.Sprintf("page received %s; app.wasm received %s; wasm drew its first screen %s; live %s",
			ms(med(sb.cold, func(l load) time.Duration { return l.html })), ms(med(sb.cold, func(l load) time.Duration { return l.wasm })),
			ms(med(sb.cold, func(l load) time.Duration { return l.drawn })), ms(med(sb.cold, interactive))),
	}}, rows[4:]...)...)
	blinks := 0
	for _, l := range append(sb.cold, sb.warm...) {
		blinks += l.blinks
	}
	rows[0].reference += fmt.Sprintf(" (Switchboard's list and detail blinked %d times in %d loads)", blinks, 2*len(sb.cold))
	sbBytes, refBytes := medBytes(sb.cold), medBytes(ref.cold)
	rows = append(rows, row{
		figure:      "bytes transferred, cold load",
		switchboard: kb(float64(sbBytes)),
		reference:   kb(float64(refBytes)) + " " + refName,
		ratio:       fmt.Sprintf("%.2fx", float64(sbBytes)/float64(refBytes)),
	}, row{
		figure:      "bytes transferred, warm load",
		switchboard: kb(float64(medBytes(sb.warm))),
		reference:   kb(float64(medBytes(ref.warm))) + " " + refName,
	})
	return rows, nil
}

func visible(l load) time.Duration     { return l.visible }
func interactive(l load) time.Duration { return l.interactive }

func med(ls []load, f func(load) time.Duration) time.Duration {
	var ds []time.Duration
	for _, l := range ls {
		ds = append(ds, f(l))
	}
	return median(ds)
}

func medBytes(ls []load) int64 {
	var ns []int64
	for _, l := range ls {
		ns = append(ns, l.bytes)
	}
	return medianInt(ns)
}
