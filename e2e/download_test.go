package e2e

import (
	"context"
	"os"
	"path/filepath"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// download clicks sel, which starts a download, and returns the file the
// browser saved.
func (p *tab) download(sel string) []byte {
	p.t.Helper()
	dir, err := os.MkdirTemp("", "e2e-download-")
	if err != nil {
		p.t.Fatalf("download directory: %v", err)
	}
	defer os.RemoveAll(dir)
	c := chromedp.FromContext(p.ctx)
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	done := make(chan string, 1)
	if err := chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*cdpbrowser.EventDownloadProgress); ok && e.State == cdpbrowser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	}); err != nil {
		p.t.Fatalf("listen for downloads: %v", err)
	}
	on := true
	if _, err := cdp.Call(ctx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: c.BrowserContextID,
		DownloadPath: dir, EventsEnabled: &on,
	}); err != nil {
		p.t.Fatalf("allow downloads: %v", err)
	}
	p.click(sel)
	select {
	case guid := <-done:
		b, err := os.ReadFile(filepath.Join(dir, guid))
		if err != nil {
			p.t.Fatalf("read the download: %v", err)
		}
		return b
	case <-ctx.Done():
		p.t.Fatalf("no download finished after clicking %s", sel)
	}
	return nil
}
