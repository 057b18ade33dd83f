package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/stdiofixture/stdiobin"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/mcpservers"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// importSecret is a header value in an imported file; it must never show.
const importSecret = "s3cret-import-value"

// writeJSON writes v as a JSON file in a fresh directory.
func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(mustJSON(v)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A person imports a desktop client's file: the HTTP servers appear and
// connect, every other entry is reported with its reason; the export
// saves the person's servers (not the operator's stdio server) without a
// secret value.
func TestImportDesktopConfigAndExportWithoutSecrets(t *testing.T) {
	r := startRelayWith(t, func(cfg *service.Config) {
		cfg.StdioConfigFile = writeJSON(t, "stdio.json", map[string]any{"mcpServers": map[string]any{
			"Local tools": map[string]any{"command": stdiobin.Path(t)},
		}})
	})
	fx := fixture.Start(t)
	p := openTab(t)
	p.login(r)
	p.waitServer("Local tools", wire.StateReady)
	if p.count(rowSel("Local tools")+" .remove-server") != 0 || p.count(rowSel("Local tools")+" .server-configured") != 1 {
		t.Error("the operator's stdio server offers Remove, or is not marked as configured")
	}

	// Duplicate names cannot be written with a Go map: the file is text.
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	doc := fmt.Sprintf(`{"mcpServers": {
	  "hosted": {"type": "http", "url": %q, "headers": {"X-Api-Key": %q}},
	  "legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
	  "local":  {"command": "npx", "args": ["-y", "some-server"]},
	  "broken": {"url": "ftp://127.0.0.1/mcp"},
	  "pigeon": {"type": "carrier-pigeon", "url": "https://x.example/mcp"},
	  "hosted": {"url": "https://other.example/mcp"}
	}}`, fx.URL(), importSecret)
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	p.click("#server-transfer > summary")
	p.do("choose the file", chromedp.SetUploadFiles("#import-file", []string{file}))
	p.waitJS("the file in the text area", `document.querySelector("#import-text").value.includes("mcpServers")`)
	p.click("#import-submit")
	p.waitText("#import-report .import-summary", "2 added, 0 already there, 4 not taken.")
	for name, reason := range map[string]string{"local": "stdio", "broken": "", "pigeon": "unknown type", "hosted": "another entry"} {
		sel := fmt.Sprintf(`#import-report .import-entry[data-outcome=skipped][data-name=%s] .import-reason`, jsString(name))
		if got := p.text(sel); got == "" || !strings.Contains(got, reason) {
			t.Errorf("reason for %s = %q, want one with %q", name, got, reason)
		}
	}
	p.waitServer("hosted", wire.StateReady)
	p.waitPresent(rowSel("legacy"))
	if eval[bool](p, fmt.Sprintf(`document.documentElement.outerHTML.includes(%[1]s) || document.querySelector("#import-text").value.includes(%[1]s)`, jsString(importSecret))) {
		t.Error("the header's value is still on the page after the import")
	}

	saved := p.download("#export-servers", "switchboard-servers.json")
	if strings.Contains(saved, importSecret) {
		t.Fatalf("the export holds the header's value:\n%s", saved)
	}
	var exported struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(saved), &exported); err != nil {
		t.Fatalf("the export is not JSON: %v\n%s", err, saved)
	}
	if h := exported.MCPServers["hosted"]; h.URL != fx.URL() || h.Type != "http" {
		t.Errorf("exported hosted = %+v", h)
	}
	if l := exported.MCPServers["legacy"]; l.Type != "sse" {
		t.Errorf("exported legacy = %+v", l)
	}
	if _, ok := exported.MCPServers["Local tools"]; ok || len(exported.MCPServers) != 2 {
		t.Errorf("exported servers = %v; want hosted and legacy only", exported.MCPServers)
	}
	for name, s := range exported.MCPServers {
		for h, v := range s.Headers {
			if v != mcpservers.SecretPlaceholder {
				t.Errorf("%s: header %s exported with value %q", name, h, v)
			}
		}
	}
}

// download clicks the link sel with the browser saving downloads, waits for
// the download to complete and returns the saved file's content; the file
// must be saved under name.
func (p *tab) download(sel, name string) string {
	p.t.Helper()
	c := chromedp.FromContext(p.ctx)
	dir := p.t.TempDir()
	begun := make(chan string, 1)
	done := make(chan struct{}, 1)
	if err := chromedp.ListenBrowser(p.ctx, func(ev any) {
		switch e := ev.(type) {
		case *cdpbrowser.EventDownloadWillBegin:
			select {
			case begun <- e.SuggestedFilename:
			default:
			}
		case *cdpbrowser.EventDownloadProgress:
			if e.State == cdpbrowser.DownloadProgressStateCompleted {
				select {
				case done <- struct{}{}:
				default:
				}
			}
		}
	}); err != nil {
		p.t.Fatal(err)
	}
	events := true
	p.do("save downloads", func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, BrowserContextID: c.BrowserContextID, DownloadPath: dir, EventsEnabled: &events})
		return chromedp.Void{}, err
	})
	p.click(sel)
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	var suggested string
	select {
	case suggested = <-begun:
	case <-ctx.Done():
		p.t.Fatalf("no download began after a click on %s", sel)
	}
	select {
	case <-done:
	case <-ctx.Done():
		p.t.Fatalf("the download of %s did not complete", sel)
	}
	if suggested != name {
		p.t.Errorf("the download is named %q, want %q", suggested, name)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		p.t.Fatalf("the downloaded file: %v", err)
	}
	return string(b)
}
