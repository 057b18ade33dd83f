package apps

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// serveLoopback serves h on 127.0.0.1 until the test ends, and returns its port.
func serveLoopback(t *testing.T, h http.Handler) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// hostPage frames the proxy at src like the dashboard does (sandboxed
// without allow-same-origin, so its messages come from origin "null" and
// only the frame's window tells them apart): when the proxy is ready it
// sends the view, and it keeps what the proxy forwards in window.got, and
// the origin of the proxy's messages in window.origins.
const hostPage = `<!doctype html><meta charset="utf-8"><body><script>
window.got = [];
window.origins = [];
const view = %s;
const f = document.createElement("iframe");
window.addEventListener("message", (e) => {
  if (e.source !== f.contentWindow) return;
  if (!origins.includes(e.origin)) origins.push(e.origin);
  const m = e.data;
  if (m && m.method === "ui/notifications/sandbox-proxy-ready") {
    f.contentWindow.postMessage({jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: {html: view, csp: {}, permissions: {}}}, "*");
    return;
  }
  window.got.push(m);
});
f.setAttribute("sandbox", "allow-scripts allow-forms");
f.src = %s;
document.body.appendChild(f);
</script>`

// viewPage is a hostile view: it tries the proxy's DOM, fetches a declared
// and an undeclared loopback server, reports each outcome to its parent,
// asks for 15 tool calls at once (the proxy passes 10 and refuses the rest
// itself) and floods the proxy.
const viewPage = `<!doctype html><meta charset="utf-8"><body><script>
const report = (name, value) => parent.postMessage({jsonrpc: "2.0", method: "test/" + name, params: {value: String(value)}}, "*");
let dom;
try { dom = parent.document.body.innerHTML; } catch (e) { dom = "blocked " + e.name; }
report("parent-document", dom);
let storage;
try { storage = String(window.localStorage); } catch (e) { storage = "blocked " + e.name; }
report("storage", storage);
let nav;
try { window.top.location.href = "about:blank#escaped"; nav = "navigated"; } catch (e) { nav = "blocked " + e.name; }
report("top", nav);
(async () => {
  for (const [name, url] of [["declared", %q], ["undeclared", %q]]) {
    try { const r = await fetch(url); report(name, "ok " + (await r.text())); } catch (e) { report(name, "failed " + e.name); }
  }
  await new Promise(resolve => {
    let refused = 0;
    addEventListener("message", e => {
      if (e.data && e.data.error && String(e.data.id).startsWith("call") && ++refused === 5) resolve();
    });
    for (let i = 0; i < 15; i++) parent.postMessage({jsonrpc: "2.0", id: "call" + i, method: "tools/call", params: {name: "x"}}, "*");
  });
  report("refused", "5");
  report("big", "x".repeat(2 << 20));
  report("done", "yes");
  for (let i = 0; i < 500; i++) parent.postMessage({jsonrpc: "2.0", method: "test/flood", params: {i}}, "*");
  setInterval(() => report("after", "yes"), 10); // never sent: the flood stops the view
})();
</script>`

// jsString quotes s for a script inside HTML.
func jsString(s string) string {
	return strings.ReplaceAll(strconv.Quote(s), "</", `<\/`)
}

func TestSandboxInChromium(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil || testing.Short() {
		t.Skip("no Chromium, or -short")
	}
	cors := func(hit *atomic.Int32) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hit.Add(1)
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprint(w, "hello")
		})
	}
	var declaredHits, undeclaredHits atomic.Int32
	declared := fmt.Sprintf("http://127.0.0.1:%d", serveLoopback(t, cors(&declaredHits)))
	undeclared := fmt.Sprintf("http://127.0.0.1:%d", serveLoopback(t, cors(&undeclaredHits)))

	// The Apps origin is localhost, the host page's 127.0.0.1: two sites.
	appsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	appsOrigin := fmt.Sprintf("http://localhost:%d", appsLn.Addr().(*net.TCPAddr).Port)
	hostLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hostOrigin := "http://" + hostLn.Addr().String()
	sandbox, err := NewSandbox(SandboxConfig{Origin: appsOrigin, Hosts: []string{hostOrigin}, Refused: []string{hostOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	for ln, h := range map[net.Listener]http.Handler{appsLn: sandbox, hostLn: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		src := wire.AppSandboxURL(appsOrigin, hostOrigin, wire.AppCSP{ConnectDomains: []string{declared}}, wire.AppPermissions{})
		fmt.Fprintf(w, hostPage, jsString(fmt.Sprintf(viewPage, declared+"/", undeclared+"/")), jsString(src))
	})} {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-dev-shm-usage", true))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	if _, err := chromedp.Run(ctx, chromedp.Navigate(hostOrigin+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Poll[[]map[string]any](
		`window.got.some(m => m && m.method === "test/done") && window.got.some(m => m && m.method === "ui/notifications/sandbox-flood") && window.got`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	// The proxy ran its script (the page's policy allows 'self' in an
	// opaque-origin document too) and spoke from an opaque origin.
	origins, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.origins`))
	if err != nil {
		t.Fatal(err)
	}
	if len(origins) != 1 || origins[0] != "null" {
		t.Errorf("the proxy's messages came from %q, want only the opaque origin", origins)
	}
	results := map[string]string{}
	floods, floodNotices, calls := 0, 0, 0
	for _, m := range got {
		method, _ := m["method"].(string)
		switch method {
		case "tools/call":
			calls++
		case "test/flood":
			floods++
		case "ui/notifications/sandbox-flood":
			floodNotices++
		default:
			p, _ := m["params"].(map[string]any)
			v, _ := p["value"].(string)
			results[strings.TrimPrefix(method, "test/")] = v
		}
	}
	t.Logf("results %v; %d flood messages forwarded, %d notices", results, floods, floodNotices)
	if calls != 10 || results["refused"] != "5" {
		t.Errorf("of 15 tool calls at once, %d were forwarded, and the view was refused %s, want 10 and 5", calls, results["refused"])
	}
	// The view ran at all: a srcdoc frame is not blocked by frame-src 'none'.
	if results["done"] != "yes" {
		t.Fatalf("the view did not run to its end: %v", results)
	}
	if v := results["parent-document"]; !strings.HasPrefix(v, "blocked SecurityError") {
		t.Errorf("the view read the proxy's DOM: %q", v)
	}
	if v := results["top"]; !strings.HasPrefix(v, "blocked") {
		t.Errorf("the view navigated the top window: %q", v)
	}
	if v := results["storage"]; !strings.HasPrefix(v, "blocked") {
		t.Errorf("the view has storage: %q", v)
	}
	if v := results["declared"]; v != "ok hello" || declaredHits.Load() != 1 {
		t.Errorf("fetch to the declared %s: %q (%d hits)", declared, v, declaredHits.Load())
	}
	if v := results["undeclared"]; !strings.HasPrefix(v, "failed") || undeclaredHits.Load() != 0 {
		t.Errorf("fetch to the undeclared %s: %q (%d hits)", undeclared, v, undeclaredHits.Load())
	}
	if _, ok := results["big"]; ok {
		t.Error("a message over 1 MiB was forwarded")
	}
	// The proxy passes at most 50 a second and stops the view past 200 at
	// once; on a loaded machine it may take those 200 over two seconds.
	if floods == 0 || floods > 100 || floodNotices != 1 {
		t.Errorf("flood of 500: %d forwarded, %d notices", floods, floodNotices)
	}
	if _, ok := results["after"]; ok {
		t.Error("the view sent on after it flooded: it was not stopped")
	}
}
