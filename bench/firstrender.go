package main

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// A page's readiness, as JavaScript expressions: seen when a person can
// read the list they came for, in the DOM when it is there (painted or
// not), interactive when it also answers input.
type readiness struct {
	name string
	// seen is the text a person reads as the first server's state once the
	// list shows; shownText says when it is shown.
	seen        string
	dom         string
	interactive string
	// settled is what the first screen shows once complete; a change after
	// which it no longer holds is a blink.
	settled string
}

// shownText is a JavaScript function of a text that says whether the page
// shows it to a person: it is in document.body.innerText (which leaves out
// what is not rendered: display: none, visibility: hidden, a closed
// details) on a line of its own, and one of the text nodes that hold it
// lies in the viewport and is not covered: the element hit at its middle
// (document.elementFromPoint) is its own element, inside it, or one of its
// ancestors (an inert page lets hits through to them). innerText alone
// counts a text under an opaque overlay, such as go-app's loader, which
// covers the whole page until the wasm runs.
const shownText = `((text) => {
	if (!document.body || !new RegExp("^" + text + "$", "m").test(document.body.innerText)) return false;
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n; (n = walk.nextNode());) {
		if (n.data.trim() !== text) continue;
		const range = document.createRange();
		range.selectNodeContents(n);
		const r = range.getBoundingClientRect();
		if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) continue;
		const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2), e = n.parentElement;
		if (hit && (hit === e || e.contains(hit) || hit.contains(e))) return true;
	}
	return false;
})`

var (
	// Switchboard's server row with its state: the text "ready", which the
	// row's state badge (and the selected server's detail) shows.
	switchboardReady = readiness{
		name:        "Switchboard",
		seen:        "ready",
		dom:         `document.querySelector('.server-row[data-state="ready"]') !== null`,
		interactive: `document.querySelector('#relay-status[data-state="live"]') !== null && document.querySelector('.server-row[data-state="ready"]') !== null`,
		settled:     `document.querySelector('.server-row[data-state="ready"]') !== null && document.querySelector('#server-detail') !== null`,
	}
	// Inspector's connect screen: a card per configured server, each with
	// its name, its connection status and a connect switch. What a person
	// reads there as a server's state, the counterpart of Switchboard's
	// "ready", is the card's status line, "Disconnected" (no server is
	// connected on a fresh start); it shows once the page has fetched its
	// server list from Inspector's API (/api/servers). The DOM figures use
	// [data-testid="connection-status"], which in 2.12.0 is the app shell's
	// header (its text is "MCP Inspector"), drawn before the cards: an
	// earlier mark than the cards, which favours Inspector there.
	inspectorReady = readiness{
		name:        inspectorName,
		seen:        "Disconnected",
		dom:         `document.querySelector('[data-testid="connection-status"]') !== null`,
		interactive: `document.querySelector('[data-testid="connection-status"]') !== null`,
		settled:     `document.querySelector('[data-testid="connection-status"]') !== null`,
	}
)

// observer records, in the page, when readiness is first reached, measured
// from the navigation's start (performance.now()), so that both pages are
// timed the same way and without polling:
//   - the first contentful paint, from a PerformanceObserver (buffered, so
//     a paint before it was attached still counts);
//   - the DOM expressions after every DOM change (a MutationObserver);
//   - the text a person sees (shownText) in a requestAnimationFrame
//     callback, at most one a frame and only after something changed (a
//     DOM change, a stylesheet or image loaded, the first paint): innerText
//     and the hit test force the style and layout the frame would compute
//     next anyway, and a frame's callbacks run only once the page may
//     render (not while a stylesheet blocks rendering), so the text counts
//     from the frame that draws it. It cannot be seen before anything is
//     painted, so the time is the later of that frame and the first
//     contentful paint.
//
// It also counts the times the settled first screen came apart again (blinks).
func observer(r readiness) string {
	return fmt.Sprintf(`(() => {
	const m = window.__bench = {};
	let frame = 0;
	const seen = () => {
		frame = 0;
		if (m.seenAt === undefined && %s(%q)) m.seenAt = performance.now();
	};
	const soon = () => { if (m.seenAt === undefined && !frame) frame = requestAnimationFrame(seen); };
	const check = () => {
		const now = performance.now();
		if (m.dom === undefined && (%s)) m.dom = now;
		if (m.interactive === undefined && (%s)) m.interactive = now;
		const settled = %s;
		if (settled) m.settled = true;
		else if (m.settled) { m.blinks = (m.blinks || 0) + 1; m.settled = false; }
		soon();
	};
	new PerformanceObserver((list) => {
		for (const e of list.getEntries()) if (e.name === "first-contentful-paint") m.fcp = e.startTime;
		soon();
	}).observe({type: "paint", buffered: true});
	new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
	document.addEventListener("DOMContentLoaded", check);
	document.addEventListener("load", soon, true);
})();`, shownText, r.seen, r.dom, r.interactive, r.settled)
}

// load is one page load's figures, from the navigation's start.
type load struct {
	fcp              time.Duration // first contentful paint
	seen             time.Duration // the list's text rendered (not before fcp)
	dom, interactive time.Duration
	bytes            int64
	blinks           int // times the settled first screen came apart again
	// Milestones of Switchboard's load: the page received, its stylesheets
	// received, app.wasm received, the wasm's first screen drawn.
	html, css, wasm, drawn time.Duration
}

// milestones reads when the page, its stylesheets and app.wasm arrived and
// when the wasm drew its first screen (the dashboard's performance mark).
const milestones = `(() => {
	const nav = performance.getEntriesByType("navigation")[0];
	const res = performance.getEntriesByType("resource");
	const wasm = res.find(e => e.name.endsWith("/app.wasm"));
	const css = Math.max(0, ...res.filter(e => e.initiatorType === "link" && e.name.endsWith(".css")).map(e => e.responseEnd));
	const mark = performance.getEntriesByName("switchboard:servers-rendered", "mark")[0];
	return {HTML: nav ? nav.responseEnd : 0, CSS: css, Wasm: wasm ? wasm.responseEnd : 0, Drawn: mark ? mark.startTime : 0};
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

// readiness waits until the page is interactive and its list seen, and
// returns its figures.
func (b *browser) readiness(r readiness) (load, error) {
	const done = `window.__bench && window.__bench.fcp !== undefined && window.__bench.seenAt !== undefined &&
		window.__bench.dom !== undefined && window.__bench.interactive !== undefined`
	if err := b.waitJS(r.name+" ready", done); err != nil {
		return load{}, err
	}
	v, err := eval[struct {
		FCP, Seen, DOM, Interactive float64
		Blinks                      int
	}](b, `({FCP: window.__bench.fcp, Seen: window.__bench.seenAt, DOM: window.__bench.dom, Interactive: window.__bench.interactive, Blinks: window.__bench.blinks || 0})`)
	if err != nil {
		return load{}, err
	}
	l := load{fcp: millis(v.FCP), seen: millis(max(v.Seen, v.FCP)), dom: millis(v.DOM), interactive: millis(v.Interactive),
		bytes: b.resetBytes(), blinks: v.Blinks}
	if r.name == switchboardReady.name {
		m, err := eval[struct{ HTML, CSS, Wasm, Drawn float64 }](b, milestones)
		if err != nil {
			return load{}, err
		}
		l.html, l.css, l.wasm, l.drawn = millis(m.HTML), millis(m.CSS), millis(m.Wasm), millis(m.Drawn)
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
		ratioRow(fmt.Sprintf("first contentful paint, cold (fresh profile; median of %d)", cfg.rounds), med(sb.cold, fcp), med(ref.cold, fcp), refName, 0.5),
		ratioRow("first render as seen, cold: the server row's state shown, rendered and not covered (Inspector: its server cards' status)", med(sb.cold, seen), med(ref.cold, seen), refName, 0.5),
		ratioRow("first contentful paint, warm (reload)", med(sb.warm, fcp), med(ref.warm, fcp), refName, 0.5),
		ratioRow("first render as seen, warm (reload)", med(sb.warm, seen), med(ref.warm, seen), refName, 0.5),
		ratioRow("server row in the DOM, cold (painted or not; Inspector: its header)", med(sb.cold, dom), med(ref.cold, dom), refName, 0),
		ratioRow("server row in the DOM, warm", med(sb.warm, dom), med(ref.warm, dom), refName, 0),
		ratioRow("time to interactive, cold", med(sb.cold, interactive), med(ref.cold, interactive), refName, 0),
		ratioRow("time to interactive, warm", med(sb.warm, interactive), med(ref.warm, interactive), refName, 0),
		{
			figure:      "where Switchboard's cold load goes (medians, from navigation start)",
			switchboard: goes(sb.cold),
		},
		{
			figure:      "where Switchboard's warm load goes (medians, from navigation start)",
			switchboard: goes(sb.warm),
		},
	}
	blinks := 0
	for _, l := range append(sb.cold, sb.warm...) {
		blinks += l.blinks
	}
	rows[4].reference += fmt.Sprintf(" (Switchboard's list and detail blinked %d times in %d loads)", blinks, 2*len(sb.cold))
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

// goes says where a side's loads went: the medians of its milestones.
func goes(ls []load) string {
	at := func(f func(load) time.Duration) string { return ms(med(ls, f)) }
	return fmt.Sprintf("page received %s; stylesheets received %s; first contentful paint %s; row's text seen %s; app.wasm received %s; wasm drew its first screen %s; live %s",
		at(func(l load) time.Duration { return l.html }), at(func(l load) time.Duration { return l.css }), at(fcp), at(seen),
		at(func(l load) time.Duration { return l.wasm }), at(func(l load) time.Duration { return l.drawn }), at(interactive))
}

func fcp(l load) time.Duration         { return l.fcp }
func seen(l load) time.Duration        { return l.seen }
func dom(l load) time.Duration         { return l.dom }
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
