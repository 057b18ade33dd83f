package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Waiting in the page.
const (
	waitTimeout  = 20 * time.Second      // for anything a person would wait for
	pollInterval = 50 * time.Millisecond // how often a condition is checked
	actionSlack  = 5 * time.Second       // more than waitTimeout for the action itself
	describeMax  = 1500                  // characters of page text in a failure
	outDir       = "out"                 // screenshots, gitignored
	pngQuality   = 100                   // FullScreenshot takes a PNG at quality 100
)

// do runs actions in the tab and fails the test on error.
func (p *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout+actionSlack)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v\n%s", what, err, p.describe())
	}
}

// navigate opens url and waits for the page to load.
func (p *tab) navigate(url string) {
	p.t.Helper()
	p.do("navigate to "+url, chromedp.Navigate(url))
}

// navigateResponse opens url and returns the document's HTTP response.
func (p *tab) navigateResponse(url string) *network.Response {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		p.t.Fatalf("navigate to %s: %v", url, err)
	}
	return resp
}

// login spends a fresh login link of r and waits for the live dashboard.
func (p *tab) login(r *relay) {
	p.t.Helper()
	p.navigate(r.loginURL(p.t))
	p.waitRelay(stateLive)
}

// waitJS waits until the JavaScript expression is truthy.
func (p *tab) waitJS(what, expr string) {
	p.t.Helper()
	p.waitJSFor(what, expr, waitTimeout)
}

// waitJSFor is waitJS with a longer wait, for what takes a server long.
func (p *tab) waitJSFor(what, expr string, timeout time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout+actionSlack)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, append(p.in.pollOpts(),
		chromedp.WithPollingInterval(pollInterval), chromedp.WithPollingTimeout(timeout))...))
	if err != nil {
		p.t.Fatalf("waiting for %s: %v\n%s", what, err, p.describe())
	}
}

// waitValue waits until a JavaScript expression has a truthy value (a
// non-empty string, say) and returns that value: the one the wait saw, so
// that a page that changes right after cannot make the test read another.
func waitValue[T any](p *tab, what, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout+actionSlack)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Poll[T](expr, append(p.in.pollOpts(),
		chromedp.WithPollingInterval(pollInterval), chromedp.WithPollingTimeout(waitTimeout))...))
	if err != nil {
		p.t.Fatalf("waiting for %s: %v\n%s", what, err, p.describe())
	}
	return v
}

// eval returns the value of a JavaScript expression.
func eval[T any](p *tab, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, p.in.evalOpts()...))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// click clicks the first visible element matching a CSS selector. In a
// frame inside its target (not the target's own), whose elements chromedp's
// queries do not reach, it is the element's click().
func (p *tab) click(sel string) {
	p.t.Helper()
	if p.inShared() {
		p.waitPresent(sel)
		eval[bool](p, fmt.Sprintf(`(document.querySelector(%s).click(), true)`, jsString(sel)))
		return
	}
	p.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// fill replaces the text of an input or textarea by typing, so the page
// sees the same input events as from a person.
func (p *tab) fill(sel, text string) {
	p.t.Helper()
	clear := fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		el.value = "";
		el.dispatchEvent(new Event("input", {bubbles: true}));
	})()`, jsString(sel))
	p.do("fill "+sel, chromedp.Evaluate[chromedp.Void](clear), chromedp.SendKeys(chromedp.CSS(sel), text))
}

// text returns the text of the first element matching sel, "" if none.
func (p *tab) text(sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%s)?.textContent ?? ""`, jsString(sel)))
}

// count returns how many elements match sel.
func (p *tab) count(sel string) int {
	p.t.Helper()
	return eval[int](p, fmt.Sprintf(`document.querySelectorAll(%s).length`, jsString(sel)))
}

// waitPresent waits until an element matches sel.
func (p *tab) waitPresent(sel string) {
	p.t.Helper()
	p.waitJS(sel, fmt.Sprintf(`document.querySelector(%s) !== null`, jsString(sel)))
}

// waitGone waits until no element matches sel.
func (p *tab) waitGone(sel string) {
	p.t.Helper()
	p.waitJS("no "+sel, fmt.Sprintf(`document.querySelector(%s) === null`, jsString(sel)))
}

// waitAttr waits until the first element matching sel has attr = want.
func (p *tab) waitAttr(sel, attr, want string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("%s[%s=%q]", sel, attr, want),
		fmt.Sprintf(`document.querySelector(%s)?.getAttribute(%s) === %s`, jsString(sel), jsString(attr), jsString(want)))
}

// waitText waits until the first element matching sel contains want.
func (p *tab) waitText(sel, want string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("%s containing %q", sel, want),
		fmt.Sprintf(`(document.querySelector(%s)?.textContent ?? "").includes(%s)`, jsString(sel), jsString(want)))
}

// describe tells what the page shows, for failure messages.
func (p *tab) describe() string {
	ctx, cancel := context.WithTimeout(p.ctx, actionSlack)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const status = document.querySelector("#relay-status");
		const rows = [...document.querySelectorAll(".server-row")].map(r =>
			r.dataset.serverName + "=" + r.dataset.state);
		return location.href + "\nrelay: " + (status ? status.dataset.state : "(no #relay-status)") +
			"\nservers: " + rows.join(", ") + "\npage text: " + (document.body ? document.body.innerText : "");
	})()`, p.in.evalOpts()...))
	if err != nil {
		return "(page not readable: " + err.Error() + ")"
	}
	if len(text) > describeMax {
		text = text[:describeMax] + "…"
	}
	return text
}

// screenshot saves a full-page PNG into e2e/out and returns its path.
func (p *tab) screenshot(name string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(pngQuality))
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		p.t.Fatalf("screenshot directory: %v", err)
	}
	path := filepath.Join(outDir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		p.t.Fatalf("save screenshot: %v", err)
	}
	return path
}

// viewport resizes the tab's viewport to width × height CSS pixels.
func (p *tab) viewport(width, height int64) {
	p.t.Helper()
	p.do(fmt.Sprintf("resize the viewport to %dx%d", width, height), chromedp.EmulateViewport(width, height))
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// evalAwait returns the value a JavaScript promise resolves to.
func evalAwait[T any](p *tab, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}
