package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// BenchmarkAppViewReady measures how long a view of the official example
// server takes to be ready (initialized, data-state "ready"), from the
// press of Call on, timed in the page: the relay's call, the view's read
// through the relay, the proxy's frame and the view's. Each call shows a
// new view. first_ms is the first call's (the relay reads the view from
// the server), ready_ms the median of the others' (the relay's cache), and
// framed_ms theirs from the press to the proxy's frame in the page (the
// call's result and the view's read): the rest is the proxy's load and the
// view's start.
func BenchmarkAppViewReady(b *testing.B) {
	const name = "Basic app"
	url := startBasicServer(b)
	r := startRelay(b)
	p := openTab(b)
	p.login(r)
	p.addServer(name, url)
	p.waitServer(name, wire.StateReady)
	p.openServer(name)
	p.waitTools(basicTool)
	// The page keeps the press of Call and the moment the view next turns
	// ready after it was loading (a new view, or the one shown read again).
	sel := jsString(appViewSel(basicURI))
	eval[bool](p, fmt.Sprintf(`(() => {
		const m = window.viewBench = {pressed: 0, framed: 0, ready: 0, loading: false, el: null, frame: null};
		document.addEventListener("click", e => {
			if (e.target.closest("#tool-call")) Object.assign(m, {pressed: performance.now(), framed: 0, ready: 0, loading: false});
		}, true);
		new MutationObserver(() => {
			const el = document.querySelector(%s);
			if (!m.pressed || m.ready || !el) return;
			if (el !== m.el || el.dataset.state === "loading") { m.el = el; m.loading = true; }
			const frame = el.querySelector("iframe.app-frame");
			if (m.loading && !m.framed && frame && frame !== m.frame) { m.frame = frame; m.framed = performance.now(); }
			if (m.loading && el.dataset.state === "ready") m.ready = performance.now();
		}).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"]});
		return true;
	})()`, sel))
	var framed, ready []time.Duration
	ms := func(expr string) time.Duration {
		return time.Duration(eval[float64](p, expr) * float64(time.Millisecond))
	}
	for b.Loop() {
		p.callTool(basicTool, "{}")
		p.waitJS("the view ready", "window.viewBench.ready > 0")
		framed = append(framed, ms("window.viewBench.framed - window.viewBench.pressed"))
		ready = append(ready, ms("window.viewBench.ready - window.viewBench.pressed"))
	}
	b.Logf("press of Call to the proxy's frame in the page, each call: %v", framed)
	b.Logf("press of Call to the view ready, each call: %v", ready)
	b.ReportMetric(msOf(ready[0]), "first_ms")
	if len(ready) > 1 {
		b.ReportMetric(msOf(median(framed[1:])), "framed_ms")
		b.ReportMetric(msOf(median(ready[1:])), "ready_ms")
	}
}

// median is the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// msOf is d in milliseconds.
func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
