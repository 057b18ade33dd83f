package e2e

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium facts.
const (
	chromiumEnv      = "CHROMIUM"
	defaultChromium  = "/usr/bin/chromium"
	windowWidth      = 1280
	windowHeight     = 900
	narrowWidth      = 360 // the narrowest screen the dashboard is made for
	browserStartTime = 30 * time.Second
)

// chromiumPath returns $CHROMIUM, or the default path, and fails the test
// when there is no browser there.
func chromiumPath(t testing.TB) string {
	t.Helper()
	path := os.Getenv(chromiumEnv)
	if path == "" {
		path = defaultChromium
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Chromium not found: run make test, which installs it, or set CHROMIUM (%v)", err)
	}
	return path
}

// allocatorOptions run Chromium headless, quiet and isolated in userDataDir.
func allocatorOptions(execPath, userDataDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(execPath),
		chromedp.UserDataDir(userDataDir),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(windowWidth, windowHeight),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	}
}

// browser is one Chromium process; its context opens tabs.
type browser struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// launchBrowser starts Chromium with the profile in userDataDir.
func launchBrowser(t testing.TB, userDataDir string) *browser {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocatorOptions(chromiumPath(t), userDataDir)...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx, cancel: func() { cancelCtx(); cancelAlloc() }}
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }() // the first Do starts the process
	select {
	case err := <-started:
		if err != nil {
			b.cancel()
			t.Fatalf("start Chromium: %v", err)
		}
	case <-time.After(browserStartTime):
		b.cancel()
		t.Fatalf("Chromium did not start within %v", browserStartTime)
	}
	return b
}

// The browser most tests share; each test gets its own browser context in it
// (own cookies and storage), so tests stay apart and Chromium starts once.
var shared struct {
	mu  sync.Mutex
	b   *browser
	dir string
}

func sharedBrowser(t testing.TB) *browser {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b != nil {
		return shared.b
	}
	dir, err := os.MkdirTemp("", "switchboard-e2e-chromium-")
	if err != nil {
		t.Fatalf("profile directory: %v", err)
	}
	shared.dir = dir
	shared.b = launchBrowser(t, dir)
	return shared.b
}

// closeSharedBrowser stops the shared browser, if one started; TestMain calls it.
func closeSharedBrowser() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b != nil {
		shared.b.cancel()
		shared.b = nil
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
		shared.dir = ""
	}
}

// openTab opens a tab in a fresh browser context of the shared browser.
func openTab(t testing.TB) *tab {
	t.Helper()
	return openTabIn(t, sharedBrowser(t), chromedp.WithNewBrowserContext())
}

// openTabIn opens a tab in b; it closes when the test ends.
func openTabIn(t testing.TB, b *browser, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx, opts...)
	if err := chromedp.Do(ctx); err != nil { // opens the tab, with no deadline on its life
		cancel()
		t.Fatalf("open tab: %v", err)
	}
	p := &tab{t: t, ctx: ctx}
	p.watchConsole()
	t.Cleanup(func() {
		p.checkConsole()
		cancel()
	})
	return p
}

// tab is one browser tab and what its console said.
type tab struct {
	t   testing.TB
	ctx context.Context
	in  *frameWorld // the frame the tab runs in, nil for a page (apps_frames_test.go)

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// watchConsole records the tab's console messages until the tab closes.
func (p *tab) watchConsole() {
	messages := chromedp.Console(p.ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
}

// consoleErrors returns the console's errors and exceptions so far.
func (p *tab) consoleErrors() []chromedp.ConsoleMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []chromedp.ConsoleMessage
	trace := 0 // lines of a panic's goroutine trace still to keep
	for _, m := range p.console {
		switch {
		case m.Type == chromedp.ConsoleError || m.IsException() || crashed(m):
			out = append(out, m)
			if strings.Contains(m.Text, "panic:") {
				trace = maxTraceLines
			}
		case trace > 0:
			out = append(out, m)
			trace--
		}
	}
	return out
}

// maxTraceLines is how much of a page's panic trace a failure shows.
const maxTraceLines = 80

// crashed reports a message that shows the Go program of the page died.
func crashed(m chromedp.ConsoleMessage) bool {
	return strings.Contains(m.Text, "panic:") || strings.Contains(m.Text, "Go program has already exited")
}

// checkConsole logs the console errors of the tab, and fails the test on an
// uncaught exception or a crash of the dashboard. Errors the browser logs
// itself (a WebSocket that could not connect while the relay restarts) are
// only logged.
func (p *tab) checkConsole() {
	for _, m := range p.consoleErrors() {
		where := m.URL
		if m.Source != "" {
			where = m.Source
		}
		if m.IsException() || crashed(m) {
			p.t.Errorf("page console: %s (%s)", m, where)
		} else {
			p.t.Logf("page console: %s (%s)", m, where)
		}
	}
}
