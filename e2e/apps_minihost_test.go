package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// miniHost is the least host of an MCP App that follows the specification's
// sandbox: a host page on 127.0.0.1 that frames a proxy on localhost (another
// site, so Chromium puts it in another process), which frames the view in a
// sandboxed srcdoc iframe under the proxy's own Content-Security-Policy. It
// answers ui/initialize and runs tools/call through a go-sdk client of the
// view's server. It is small on purpose: it tests the frame helpers and the
// hostile views themselves, not the dashboard (no flood cap, no size cap).
type miniHost struct {
	host, proxy string // origins
	cs          *mcp.ClientSession
}

// startMiniHost serves a host and a proxy for views of the MCP server at
// serverURL; both stop when the test ends.
func startMiniHost(t *testing.T, serverURL string) *miniHost {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "minihost"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: serverURL}, nil)
	if err != nil {
		t.Fatalf("connect the mini host to %s: %v", serverURL, err)
	}
	t.Cleanup(func() { cs.Close() })
	h := &miniHost{cs: cs}
	hostMux := http.NewServeMux()
	hostMux.HandleFunc("GET /", h.serveHostPage)
	hostMux.HandleFunc("GET /view", h.serveView)
	hostMux.HandleFunc("POST /call", h.serveCall)
	h.host = "http://" + serveLoopback(t, "127.0.0.1:0", hostMux)
	proxyAddr := serveLoopback(t, "127.0.0.1:0", http.HandlerFunc(h.serveProxy))
	h.proxy = "http://localhost:" + proxyAddr[strings.LastIndex(proxyAddr, ":")+1:]
	return h
}

// serveLoopback serves handler on addr until the test ends and returns the
// address it got.
func serveLoopback(t *testing.T, addr string, handler http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: readHeaderTimeout}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// pageURL is the host page showing the view at uri with a result of tool.
func (h *miniHost) pageURL(tool, uri string) string {
	return fmt.Sprintf("%s/?tool=%s&uri=%s", h.host, tool, uri)
}

// serveHostPage is the host: it frames the proxy, sends it the view once it
// is ready, gives the view the result of a call of the tool once it is
// initialized, answers the view's requests (its host context has the dark
// theme), and records in window.strays every
// message that came from anything but the proxy.
func (h *miniHost) serveHostPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><head><title>mini host</title></head><body><p id="host">host</p><script>
const PROXY = %s;
const params = new URLSearchParams(location.search);
window.strays = [];
window.received = [];
document.cookie = "hostsecret=1; path=/";
localStorage.setItem("hostsecret", "1");
(async () => {
  const view = await (await fetch("/view?uri=" + encodeURIComponent(params.get("uri")))).json();
  const q = new URLSearchParams({host: location.origin});
  for (const d of view.connect) q.append("connect", d);
  const frame = document.createElement("iframe");
  frame.className = "app-frame";
  frame.src = PROXY + "/sandbox?" + q;
  const reply = m => frame.contentWindow.postMessage(m, PROXY);
  window.addEventListener("message", async e => {
    if (e.source !== frame.contentWindow || e.origin !== PROXY) { strays.push(e.data); return; }
    const m = e.data;
    received.push(m.method ?? "response");
    if (m.method === "ui/notifications/sandbox-proxy-ready") {
      if (window.viewSent) return; // once: the view may forge another
      window.viewSent = true;
      reply({jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: {html: view.html, csp: {connectDomains: view.connect}}});
      return;
    }
    if (m.method === "ui/notifications/initialized" && params.get("tool")) {
      const res = await fetch("/call", {method: "POST", body: JSON.stringify({name: params.get("tool"), arguments: {}})});
      reply({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: await res.json()});
      return;
    }
    if (m.id === undefined || m.method === undefined) return;
    if (m.method === "ui/initialize") {
      reply({jsonrpc: "2.0", id: m.id, result: {protocolVersion: m.params.protocolVersion,
        hostInfo: {name: "minihost", version: "1"}, hostCapabilities: {serverTools: {}}, hostContext: {theme: "dark"}}});
    } else if (m.method === "tools/call") {
      const res = await fetch("/call", {method: "POST", body: JSON.stringify(m.params)});
      reply({jsonrpc: "2.0", id: m.id, result: await res.json()});
    } else {
      reply({jsonrpc: "2.0", id: m.id, error: {code: -32601, message: "not in the mini host"}});
    }
  });
  document.body.append(frame);
})();
</script></body></html>`, jsString(h.proxy))
}

// serveView reads a view through the client: {html, connect}.
func (h *miniHost) serveView(w http.ResponseWriter, r *http.Request) {
	res, err := h.cs.ReadResource(r.Context(), &mcp.ReadResourceParams{URI: r.URL.Query().Get("uri")})
	if err != nil || len(res.Contents) == 0 {
		http.Error(w, fmt.Sprint(err), http.StatusBadGateway)
		return
	}
	c := res.Contents[0]
	var meta struct {
		UI struct {
			CSP struct {
				ConnectDomains []string `json:"connectDomains"`
			} `json:"csp"`
		} `json:"ui"`
	}
	raw, _ := json.Marshal(c.Meta)
	json.Unmarshal(raw, &meta)
	json.NewEncoder(w).Encode(map[string]any{"html": c.Text, "connect": append([]string{}, meta.UI.CSP.ConnectDomains...)})
}

// serveCall runs a view's tools/call.
func (h *miniHost) serveCall(w http.ResponseWriter, r *http.Request) {
	var params mcp.CallToolParams
	if err := json.NewDecoder(r.Body).Decode(&params); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res, err := h.cs.CallTool(r.Context(), &params)
	if err != nil {
		res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
	}
	json.NewEncoder(w).Encode(res)
}

// serveProxy is the sandbox proxy of the specification, without its caps:
// under a Content-Security-Policy from the declared connect domains, it
// frames the view's HTML in a sandboxed srcdoc iframe, which inherits the
// policy, and forwards messages between its parent (from the host origin
// only) and the view.
func (h *miniHost) serveProxy(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	connect := "'none'"
	if c := q["connect"]; len(c) > 0 {
		connect = strings.Join(c, " ")
	}
	w.Header().Set("Content-Security-Policy", fmt.Sprintf(
		"default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src %s; img-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self'; frame-ancestors %s",
		connect, q.Get("host")))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><body><script>
const HOST = %s;
const inner = document.createElement("iframe");
inner.setAttribute("sandbox", "allow-scripts allow-forms");
window.addEventListener("message", e => {
  const m = e.data;
  if (e.source === window.parent && e.origin === HOST) {
    if (m && m.method === "ui/notifications/sandbox-resource-ready") {
      inner.srcdoc = m.params.html;
      document.body.append(inner);
    } else {
      inner.contentWindow.postMessage(m, "*");
    }
  } else if (e.source === inner.contentWindow) {
    window.parent.postMessage(m, HOST);
  }
});
window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {}}, HOST);
</script></body></html>`, jsString(q.Get("host")))
}
