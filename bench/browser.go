package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Browser timeouts.
const (
	browserStart = 30 * time.Second
	pageTimeout  = 60 * time.Second
)

// offline are the third-party URLs the pages ask for (MCP Inspector's web
// fonts); the machine is offline, so they are refused at once instead of
// waiting on a network that is not there. This favours the reference.
var offline = []string{"*://fonts.googleapis.com/*", "*://fonts.gstatic.com/*"}

// browser is one headless Chromium with its own fresh profile, and its tab.
type browser struct {
	ctx     context.Context
	cancel  func()
	profile string

	mu    sync.Mutex
	bytes int64 // encoded bytes of the responses finished since reset
}

// launch starts Chromium with a fresh profile and opens a tab.
func launch(chromium string) (*browser, error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-chromium-")
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(dir),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b := &browser{ctx: ctx, cancel: func() { cancel(); acancel(); os.RemoveAll(dir) }, profile: dir}
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err = <-started:
	case <-time.After(browserStart):
		err = fmt.Errorf("Chromium did not start within %v", browserStart)
	}
	if err == nil {
		err = b.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, t, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: blockPatterns()})
			return err
		}))
	}
	if err != nil {
		b.cancel()
		return nil, fmt.Errorf("start Chromium (%s): %w", chromium, err)
	}
	err = chromedp.Listen(ctx, func(ev any) {
		if ev, ok := ev.(*network.EventLoadingFinished); ok {
			b.mu.Lock()
			b.bytes += int64(ev.EncodedDataLength)
			b.mu.Unlock()
		}
	})
	if err != nil {
		b.cancel()
		return nil, err
	}
	return b, nil
}

func blockPatterns() []*network.BlockPattern {
	var ps []*network.BlockPattern
	for _, u := range offline {
		ps = append(ps, &network.BlockPattern{URLPattern: u, Block: true})
	}
	return ps
}

// run runs CDP actions with the page timeout.
func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, pageTimeout)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// eval evaluates JavaScript, awaiting a promise, into T.
func eval[T any](b *browser, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, pageTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// waitJS waits until a JavaScript expression is truthy.
func (b *browser) waitJS(what, expr string) error {
	ctx, cancel := context.WithTimeout(b.ctx, pageTimeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(pageTimeout)))
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}

// onNewDocument runs script at the start of every document the tab loads.
func (b *browser) onNewDocument(script string) error {
	return b.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	}))
}

// resetBytes zeroes the transferred-bytes counter and returns what it held.
func (b *browser) resetBytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.bytes
	b.bytes = 0
	return n
}
