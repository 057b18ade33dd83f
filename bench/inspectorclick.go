package main

import (
	"fmt"
	"net/url"

	"github.com/chromedp/chromedp"
)

// inspectorButtons are JavaScript helpers for Inspector's Tools screen:
// screen() is the screen, button(text) the button in it with that text.
const inspectorButtons = `const screen = () => document.querySelector('[data-testid="tools-screen"]');
	const button = (text) => { const s = screen(); return s ? [...s.querySelectorAll("button")].find(b => b.textContent.trim() === text) : undefined; };`

// inspectorReset closes the tick tool's last result, if one is shown, and
// resolves once the tool's form is back with its Execute Tool button
// enabled: Inspector shows a result in place of the form.
const inspectorReset = `new Promise((resolve) => {
	` + inspectorButtons + `
	const ready = () => { const b = button("Execute Tool"); return !!b && !b.disabled; };
	const close = document.querySelector('[data-testid="tools-screen"] button[aria-label="Close results"]');
	if (close) close.click();
	if (ready()) { resolve(true); return; }
	const obs = new MutationObserver(() => { if (ready()) { obs.disconnect(); resolve(true); } });
	obs.observe(document.body, {subtree: true, childList: true, attributes: true});
})`

// inspectorClick clicks Execute Tool and resolves with the milliseconds
// until the page holds the result of that call, watched by a
// MutationObserver: tick's text "tick N" with N above the last one seen
// (the fixture counts every call of tick), and the count N.
const inspectorClick = `new Promise((resolve, reject) => {
	` + inspectorButtons + `
	const last = %d;
	const shown = () => {
		for (const p of screen()?.querySelectorAll("pre") ?? []) {
			const m = /^tick (\d+)$/.exec(p.textContent.trim());
			if (m && +m[1] > last) return +m[1];
		}
		return 0;
	};
	const b = button("Execute Tool");
	if (!b || b.disabled) { reject(new Error("no Execute Tool button for tick")); return; }
	const obs = new MutationObserver(() => {
		const n = shown();
		if (!n) {
			if (screen()?.querySelector('button[aria-label="Close error"]')) { obs.disconnect(); reject(new Error("tick failed: " + screen().innerText)); }
			return;
		}
		obs.disconnect();
		const end = performance.now(), t = window.__mcp;
		resolve({Total: end - start, ToSend: t.sent - start, Relay: t.result - t.sent, Render: end - t.result, Tick: n});
	});
	obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
	const start = performance.now();
	window.__mcp.sent = window.__mcp.result = undefined;
	b.click();
})`

// inspectorTimes patches the page's fetch, before any page script runs, to
// note when the last tools/call left for Inspector's proxy (a POST to
// /api/mcp/send) and when tick's result first came back after it on the
// proxy's event stream (/api/mcp/events, read through a pass-through
// stream), so that a click's time splits as wsTimes splits the dashboard's.
const inspectorTimes = `(() => {
	const t = window.__mcp = {};
	const f = window.fetch;
	window.fetch = async function (input, init) {
		const url = typeof input === "string" ? input : input.url;
		if (url.includes("/api/mcp/send") && typeof init?.body === "string" && init.body.includes('"tools/call"')) t.sent = performance.now();
		const res = await f.apply(this, arguments);
		if (!url.includes("/api/mcp/events") || !res.body) return res;
		const dec = new TextDecoder();
		const body = res.body.pipeThrough(new TransformStream({transform(chunk, c) {
			if (dec.decode(chunk, {stream: true}).includes('"tick ') && !(t.result > t.sent)) t.result = performance.now();
			c.enqueue(chunk);
		}}));
		return new Response(body, {status: res.status, statusText: res.statusText, headers: res.headers});
	};
})();`

// inspectorPage is MCP Inspector (its web UI and proxy) with its page in a
// browser of its own, connected through the proxy to an MCP server, on its
// Tools screen with the tick tool's form open.
type inspectorPage struct {
	in   *inspector
	br   *browser
	last int // the last tick count it showed
}

// openInspectorTick starts Inspector and opens its page with a deep link
// (its query parameters serverUrl, transport and autoConnect, the last its
// API token), which adds the server as "deep-link" over Streamable HTTP and
// connects it; then opens Tools, which lists the server's tools, and
// selects tick.
func openInspectorTick(chromium, launcher, serverURL string) (*inspectorPage, error) {
	in, err := startInspector(launcher)
	if err != nil {
		return nil, err
	}
	p, err := openTick(chromium, in, serverURL)
	if err != nil {
		in.stop()
		return nil, err
	}
	return p, nil
}

// openTick opens the tick tool's form in a running Inspector.
func openTick(chromium string, in *inspector, serverURL string) (*inspectorPage, error) {
	u, err := url.Parse(in.url)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("serverUrl", serverURL)
	q.Set("transport", "http")
	q.Set("autoConnect", q.Get("MCP_INSPECTOR_API_TOKEN"))
	u.RawQuery = q.Encode()
	br, err := launch(chromium)
	if err != nil {
		return nil, err
	}
	if err := br.onNewDocument(inspectorTimes); err != nil {
		br.cancel()
		return nil, err
	}
	p := &inspectorPage{in: in, br: br}
	steps := []struct {
		what string
		do   func() error
	}{
		{"open Inspector", func() error { return br.run(chromedp.Navigate(u.String())) }},
		{"connected", func() error {
			return br.waitJS("Inspector's Tools tab", `document.querySelector('input[type="radio"][value="Tools"]') !== null`)
		}},
		{"tools", func() error {
			_, err := eval[bool](br, `(document.querySelector('input[type="radio"][value="Tools"]').click(), true)`)
			return err
		}},
		{"tick", func() error {
			if err := br.waitJS("tick in Inspector's tool list", `(() => { `+inspectorButtons+` return button("tick") !== undefined; })()`); err != nil {
				return err
			}
			_, err := eval[bool](br, `(() => { `+inspectorButtons+` button("tick").click(); return true; })()`)
			return err
		}},
		{"form", p.reset},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			br.cancel()
			return nil, fmt.Errorf("Inspector: %s: %w", s.what, err)
		}
	}
	return p, nil
}

// reset brings back the tick tool's form, closing the result it shows.
func (p *inspectorPage) reset() error {
	_, err := eval[bool](p.br, inspectorReset)
	return err
}

// click times one click on Execute Tool until its result is in the page,
// then brings the form back for the next one.
func (p *inspectorPage) click() (clickTimes, error) {
	c, err := eval[struct {
		clickTimes
		Tick int
	}](p.br, fmt.Sprintf(inspectorClick, p.last))
	if err != nil {
		return clickTimes{}, err
	}
	p.last = c.Tick
	return c.clickTimes, p.reset()
}

func (p *inspectorPage) close() {
	p.br.cancel()
	p.in.stop()
}
