package e2e

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	_ "modernc.org/sqlite" // database/sql driver "sqlite", to read the relay's store

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The OAuth world of a test.
const (
	protectedName = "protected"      // the name the tests give the protected server
	readScope     = "mcp:read"       // what the protected server demands
	storeFile     = "switchboard.db" // the relay's SQLite file in its data directory
	localUser     = service.DefaultLocalUser
)

// oauthWorld is a relay that can run OAuth flows (its PublicURL is set), a
// fixture authorization server and the MCP server it protects.
type oauthWorld struct {
	r      *relay
	as     *oauthfixture.AuthServer
	rs     *oauthfixture.Resource
	client oauthfixture.Client // pre-registered with as, if asked for
}

// startOAuthWorld starts the three; the relay stops when the test ends.
// With preRegister, a confidential client is registered with the fixture
// for the relay's callback, which is why the relay's address is chosen
// first.
func startOAuthWorld(t testing.TB, cfg oauthfixture.AuthConfig, preRegister bool) *oauthWorld {
	t.Helper()
	addr := freeLoopbackAddr(t)
	w := &oauthWorld{}
	if preRegister {
		w.client = oauthfixture.Client{ID: "switchboard-e2e", Secret: "secret-" + rand.Text(),
			RedirectURIs: []string{"http://" + addr + oauth.CallbackPath}}
		cfg.Clients = append(cfg.Clients, w.client)
	}
	w.as = oauthfixture.StartAuthServer(t, cfg)
	w.rs = oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: w.as, Scopes: []string{readScope}})
	w.r = &relay{
		t: t,
		cfg: service.Config{
			DataDir:        t.TempDir(),
			AllowLoopback:  true,
			HealthInterval: healthInterval,
			RetryMin:       retryMin,
			RetryMax:       retryMax,
			PublicURL:      "http://" + addr,
			Logger:         testLogger(t, "relay"),
		},
		addr: addr,
	}
	w.r.start()
	t.Cleanup(w.r.stop)
	return w
}

// freeLoopbackAddr returns a 127.0.0.1 address with a port free right now,
// outside the range of outgoing connections' ports (fixture.ListenStable),
// for a relay that restarts on it.
func freeLoopbackAddr(t testing.TB) string {
	t.Helper()
	ln, err := fixture.ListenStable()
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// frameRecorder keeps the payload of every WebSocket frame a tab received.
type frameRecorder struct {
	mu     sync.Mutex
	frames []string
}

// recordFrames records the WebSocket frames p receives from now on. Call it
// before the dashboard connects. The listener runs as the events arrive, so
// every frame received before a later command returned is recorded.
func (p *tab) recordFrames() *frameRecorder {
	p.t.Helper()
	rec := &frameRecorder{}
	err := chromedp.Listen(p.ctx, func(ev any) {
		e, ok := ev.(*network.EventWebSocketFrameReceived)
		if !ok || e.Response == nil {
			return
		}
		rec.mu.Lock()
		rec.frames = append(rec.frames, string(e.Response.PayloadData)) // cdproto decodes binary frames
		rec.mu.Unlock()
	})
	if err != nil {
		p.t.Fatalf("listen for WebSocket frames: %v", err)
	}
	return rec
}

// checkNoSecrets fails the test if any frame recorded carries one of the
// secrets. A frame must mention mustSee, which proves the recording works.
func (rec *frameRecorder) checkNoSecrets(t testing.TB, secrets []string, mustSee string) {
	t.Helper()
	rec.mu.Lock()
	frames := slices.Clone(rec.frames)
	rec.mu.Unlock()
	if !slices.ContainsFunc(frames, func(f string) bool { return strings.Contains(f, mustSee) }) {
		t.Fatalf("none of the %d WebSocket frames recorded mentions %q: the recording missed the dashboard's socket", len(frames), mustSee)
	}
	if len(secrets) == 0 {
		t.Fatal("the authorization server handed out no token or secret; nothing to look for")
	}
	for i, f := range frames {
		for _, s := range secrets {
			if strings.Contains(f, s) {
				t.Errorf("WebSocket frame %d to the dashboard carries a secret (%s…): %.200s", i, kindOf(s), f)
			}
		}
	}
	t.Logf("checked %d WebSocket frames against %d tokens and secrets", len(frames), len(secrets))
}

// kindOf names a fixture secret by its prefix ("at", "rt", "secret"),
// without showing it.
func kindOf(secret string) string {
	kind, _, _ := strings.Cut(secret, "-")
	return kind
}

// authorizeFrom clicks the Authorize button inside sel and returns the
// popup it opened, showing the fixture's consent page.
func (p *tab) authorizeFrom(sel string) *tab {
	p.t.Helper()
	return p.openedBy(sel+" .authorize-server", "the popup")
}

// followLink clicks the link sel, which opens a new tab, and returns that
// tab once it shows the fixture's consent page.
func (p *tab) followLink(sel string) *tab {
	p.t.Helper()
	return p.openedBy(sel, "the sign-in tab")
}

// openedBy clicks sel and attaches to the page the click opens, once it
// shows the fixture's consent page.
func (p *tab) openedBy(sel, what string) *tab {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	opened := chromedp.WaitNewTarget(ctx, func(info *target.Info) bool { return info.Type == "page" })
	p.click(sel)
	var id target.ID
	select {
	case got, ok := <-opened:
		if !ok {
			p.t.Fatalf("%s did not open after clicking %s\n%s", what, sel, p.describe())
		}
		id = got
	case <-ctx.Done():
		p.t.Fatalf("%s did not open within %v after clicking %s\n%s", what, waitTimeout, sel, p.describe())
	}
	newCtx, cancelNew := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id))
	p.t.Cleanup(cancelNew)
	// The target lives as long as the context of its first run: attach
	// with its own context, without a deadline.
	if err := chromedp.Do(newCtx); err != nil {
		p.t.Fatalf("attach to %s: %v", what, err)
	}
	page := &tab{t: p.t, ctx: newCtx}
	page.do("the consent page in "+what, chromedp.WaitVisible(chromedp.CSS("#approve")))
	return page
}

// waitNoUserActivation waits until the page's transient user activation
// (from the last click, or the last poll, which the browser counts as a
// gesture) has lapsed. It checks without a gesture of its own.
func (p *tab) waitNoUserActivation() {
	p.t.Helper()
	waitFor(p.t, "the user activation to lapse", func() bool {
		return !eval[bool](p, `navigator.userActivation.isActive`)
	})
}

// waitClosed waits until the popup closed itself.
func (p *tab) waitClosed() {
	p.t.Helper()
	gone, err := chromedp.Detached(p.ctx)
	if err != nil {
		p.t.Fatalf("popup target: %v", err)
	}
	select {
	case <-gone:
	case <-time.After(waitTimeout):
		p.t.Fatalf("the popup did not close itself within %v\n%s", waitTimeout, p.describe())
	}
}

// waitBodyText waits until the page says want and returns its text. It
// queries the DOM, so it holds across the popup's navigations, where a
// script polling in the page would be torn down.
func (p *tab) waitBodyText(want string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	xpath := chromedp.Search(fmt.Sprintf(`//body[contains(., %q)]`, want))
	text, err := chromedp.Run(ctx, chromedp.TextContent(xpath))
	if err != nil {
		p.t.Fatalf("waiting for a page saying %q: %v\n%s", want, err, p.describe())
	}
	return text
}

// watchStates records, in the page, every state the row of the server
// called name shows from now on (see states).
func (p *tab) watchStates(name string) {
	p.t.Helper()
	eval[any](p, fmt.Sprintf(`(() => {
		const seen = [];
		const note = () => {
			const row = document.querySelector(%s);
			const s = row ? row.dataset.state : "(gone)";
			if (seen[seen.length - 1] !== s) seen.push(s);
		};
		note();
		new MutationObserver(note).observe(document.body,
			{subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"]});
		window.__sbStates = seen;
	})()`, jsString(rowSel(name))))
}

// states returns the states recorded since watchStates.
func (p *tab) states() []wire.ServerState {
	p.t.Helper()
	return eval[[]wire.ServerState](p, `window.__sbStates ?? []`)
}

// saveClient enters pre-registered client credentials on the Info tab of
// the open server and saves them.
func (p *tab) saveClient(id, secret string) {
	p.t.Helper()
	p.click("#tab-info")
	p.waitPresent("#client-form")
	p.fill("#client-id", id)
	p.fill("#client-secret", secret)
	p.click("#client-save")
	p.waitText("#client-note", "Saved")
}

// oauthRows counts the rows of the relay's OAuth tables for user's server,
// reading the SQLite file read-only.
func oauthRows(t testing.TB, dataDir, server string) map[string]int {
	t.Helper()
	dsn := (&url.URL{Scheme: "file", Path: filepath.Join(dataDir, storeFile), RawQuery: "mode=ro"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatalf("open the relay's store read-only: %v", err)
	}
	defer db.Close()
	counts := map[string]int{}
	for _, table := range []string{"oauth_tokens", "oauth_clients", "oauth_states"} {
		var n int
		q := `SELECT count(*) FROM ` + table + ` WHERE user_id = ? AND server_id = ?`
		if err := db.QueryRow(q, localUser, server).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		counts[table] = n
	}
	return counts
}

// waitFor polls cond until it holds, and fails the test after waitTimeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not within %v", what, waitTimeout)
		}
		time.Sleep(pollInterval)
	}
}
