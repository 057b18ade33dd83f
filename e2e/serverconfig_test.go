package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Secrets the header and query string tests hand the dashboard.
const (
	headerName   = "X-Api-Key"
	headerSecret = "hdr-e2e-7f3a9c"
	querySecret  = "qry-e2e-51d2b8"
)

// configServer is an MCP server with one tool, for the server configuration
// tests.
func configServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "config-fixture", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	return s
}

// startKeyedServer serves Streamable HTTP on 127.0.0.1 and answers 401 to
// any request without the header.
func startKeyedServer(t *testing.T) string {
	t.Helper()
	s := configServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(headerName) != headerSecret {
			http.Error(w, "missing API key", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// startSSEServer serves the legacy SSE transport only, on 127.0.0.1.
func startSSEServer(t *testing.T) string {
	t.Helper()
	s := configServer()
	hs := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	return hs.URL + "/sse"
}

// startStreamableServer serves Streamable HTTP only, on 127.0.0.1.
func startStreamableServer(t *testing.T) string {
	t.Helper()
	s := configServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// setValue sets the value of the input or select sel as a person's typing
// would end, without typing each character.
func (p *tab) setValue(sel, value string) {
	p.t.Helper()
	eval[any](p, fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		el.value = %s;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, jsString(sel), jsString(value)))
}

func TestServerWithAHeaderAndAnSSEServerBecomeReadyAndSecretsStayInTheRelay(t *testing.T) {
	r := startRelay(t)
	keyed, sse := startKeyedServer(t), startSSEServer(t)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(r)

	p.fill("#add-name", "keyed")
	p.fill("#add-url", keyed+"?api_key="+querySecret)
	p.click(".add-more summary")
	p.click("#add-header-row")
	p.waitPresent("#add-header-name-0")
	p.fill("#add-header-name-0", headerName)
	p.fill("#add-header-value-0", headerSecret)
	p.click("#add-submit")
	p.waitServer("keyed", wire.StateReady)
	if got := p.text(rowSel("keyed") + " .server-url"); !strings.Contains(got, "auto ("+string(wire.TransportStreamable)+")") {
		t.Errorf("row says %q, want the transport auto found", got)
	}
	if eval[string](p, `document.querySelector("#add-header-value-0")?.value ?? ""`) != "" {
		t.Error("the header value stays in the form after adding")
	}

	p.addServer("legacy", sse)
	p.waitServer("legacy", wire.StateReady)
	p.waitText(rowSel("legacy")+" .server-url", "auto (sse)")

	p.openServer("keyed")
	p.click("#tab-settings")
	p.waitPresent(fmt.Sprintf(`#edit-server [data-header=%s]`, jsString(headerName)))
	if url := eval[string](p, `document.querySelector("#edit-url").value`); strings.Contains(url, querySecret) || !strings.Contains(url, "api_key=•••") {
		t.Errorf("the settings show the URL %q, want its key masked", url)
	}
	frames.checkNoSecrets(t, []string{headerSecret, querySecret}, headerName)
}

func TestEditDisconnectReconnectAndBadURLsExplained(t *testing.T) {
	r := startRelay(t)
	sse, streamable := startSSEServer(t), startStreamableServer(t)
	p := openTab(t)
	p.login(r)

	// An SSE endpoint added as Streamable HTTP fails with a hint and is
	// fixed in place.
	p.fill("#add-name", "moving")
	p.fill("#add-url", sse)
	p.setValue("#add-transport", string(wire.TransportStreamable))
	p.click("#add-submit")
	p.waitServer("moving", wire.StateFailed)
	p.waitText(rowSel("moving")+" .server-error", "switch the transport to SSE or auto")
	id := p.serverID("moving")
	p.openServer("moving")
	p.click("#tab-settings")
	p.setValue("#edit-transport", string(wire.TransportSSE))
	p.click("#edit-submit")
	p.waitServer("moving", wire.StateReady)
	p.waitText("#edit-note", "Saved")

	// A new URL and transport: the same server, ready on the new one.
	p.setValue("#edit-url", streamable)
	p.setValue("#edit-transport", string(wire.TransportStreamable))
	p.click("#edit-submit")
	p.waitJS("the row on the new URL", fmt.Sprintf(`document.querySelector(%s)?.textContent.includes(%s)`,
		jsString(rowSel("moving")+" .server-url"), jsString(string(wire.TransportStreamable)+" · "+strings.TrimPrefix(strings.TrimSuffix(streamable, "/mcp"), "http://"))))
	p.waitServer("moving", wire.StateReady)
	if p.serverID("moving") != id {
		t.Error("the edit changed the server's id")
	}

	// Disconnect and connect again.
	p.click("#toggle-connect")
	p.waitText(rowSel("moving")+" .state-badge", "disconnected")
	p.waitJS("the Connect button", `(b => b && !b.disabled && b.textContent === "Connect")(document.querySelector("#toggle-connect"))`)
	p.click("#toggle-connect")
	p.waitServer("moving", wire.StateReady)
	p.waitText(rowSel("moving")+" .state-badge", "ready")

	// Bad input is explained on the field, nothing is cut or sent.
	for _, c := range []struct{ name, url, want, field string }{
		{"spaced", "http://127.0.0.1:8192/ mcp", "spaces", "#add-url"},
		{"schemeless", "127.0.0.1:8192/mcp", "missing scheme", "#add-url"},
		{"port", "http://127.0.0.1:99999/mcp", "port", "#add-url"},
		{"creds", "http://user:pw@127.0.0.1:8192/mcp", "credentials", "#add-url"},
		{strings.Repeat("n", 10000), streamable, "10000 characters long; the limit is 100", "#add-name"},
		{"moving", streamable, "server names are unique", "#add-name"},
	} {
		p.setValue("#add-name", c.name)
		p.setValue("#add-url", c.url)
		p.click("#add-submit")
		p.waitText("#add-error", c.want)
		p.waitAttr(c.field, "aria-invalid", "true")
		if n := eval[int](p, `document.querySelector("#add-name").value.length`); n != len(c.name) {
			t.Errorf("the name field holds %d characters, want all %d typed", n, len(c.name))
		}
	}
	if n := p.count(".server-row"); n != 1 {
		t.Errorf("%d server rows, want only the one added", n)
	}
}
