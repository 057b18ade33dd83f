package e2e

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The embed tests share one relay, one listed host site (the demo host,
// on localhost: another site than the relay's 127.0.0.1), one site that is
// not listed, and the shared browser. alice has three servers, bob one.
func TestEmbed(t *testing.T) {
	w := startEmbedWorld(t)
	plain := fixture.Start(t)
	asker := elicitfixture.Start(t, elicitfixture.Options{})
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, Scopes: []string{readScope}})

	alice, _ := w.hostSocket(t, "alice")
	alpha := alice.addServer("alpha", plain.URL())
	askerID := alice.addServer(askerName, asker.URL())
	protected := alice.addServer(protectedName, rs.URL())
	alice.waitServerState(askerID, wire.StateReady)
	bob, _ := w.hostSocket(t, "bob")
	bob.addServer("beta", plain.URL())

	t.Run("AHostsUserSeesTheirServers", func(t *testing.T) { aHostsUserSeesTheirServers(t, w, alpha) })
	t.Run("AnotherUserOfTheSameHostSeesOnlyTheirs", func(t *testing.T) { anotherUserOfTheSameHostSeesOnlyTheirs(t, w) })
	t.Run("AnUnlistedSiteIsRefused", func(t *testing.T) { anUnlistedSiteIsRefused(t, w) })
	t.Run("AFreshTokenKeepsTheSocket", func(t *testing.T) { aFreshTokenKeepsTheSocket(t, w) })
	t.Run("AnExpiredTokenSignsOutAndAsksTheHost", func(t *testing.T) { anExpiredTokenSignsOutAndAsksTheHost(t, w) })
	t.Run("TheQuestionsViewShowsAQuestionAskedDuringACall", func(t *testing.T) { theQuestionsViewShowsAQuestionAskedDuringACall(t, w, askerID) })
	t.Run("AnAuthorizationCompletesInsideTheEmbed", func(t *testing.T) { anAuthorizationCompletesInsideTheEmbed(t, w, protected, as) })
}

// aHostsUserSeesTheirServers opens alice's embed on the listed site: it
// lists her servers, tells the host of them and their states and nothing
// more, and keeps no service worker and no cookie of the relay.
func aHostsUserSeesTheirServers(t *testing.T, w *embedWorld, alpha string) {
	e := openEmbed(t, w.hostURL, url.Values{"user": {"alice"}})
	e.frame.waitEmbed("live")
	e.frame.waitPresent(rowSel("alpha"))
	if got, want := e.frame.rowNames(), []string{"alpha", askerName, protectedName}; !slices.Equal(got, want) {
		t.Errorf("alice's embed lists %v, want %v", got, want)
	}
	e.host.waitHostEvent("servers", `ev.servers.some(s => s.id === `+jsString(alpha)+` && s.name === "alpha")`)
	e.frame.waitServer("alpha", wire.StateReady)
	e.host.waitHostEvent("servers", `ev.servers.some(s => s.name === "alpha" && s.state === "ready")`)
	for _, ev := range e.host.hostEvents() {
		for k := range ev {
			if !slices.Contains([]string{"type", "servers", "count"}, k) {
				t.Errorf("the host heard %q in an event: %v", k, ev)
			}
		}
		for _, s := range asList(ev["servers"]) {
			for k := range s {
				if !slices.Contains([]string{"id", "name", "state"}, k) {
					t.Errorf("the host heard a server's %q: %v", k, s)
				}
			}
		}
	}
	if types := eventTypes(e.host.hostEvents()); len(types) == 0 || types[0] != "ready" {
		t.Errorf("the host's first event is not ready: %v", types)
	}
	if n := eval[int](e.frame, `navigator.serviceWorker ? 1 : 0`); n == 1 {
		regs := evalAwait[int](e.frame, `navigator.serviceWorker.getRegistrations().then(r => r.length)`)
		if regs != 0 {
			t.Errorf("the embed registered %d service workers, want none", regs)
		}
	}
	if cookies := e.frame.cookiesOf(w.r.URL() + "/"); len(cookies) != 0 {
		t.Errorf("the embed works with cookies of the relay: %v", cookies)
	}
	t.Logf("screenshot: %s", e.host.screenshot("embed-host-page"))
}

// anotherUserOfTheSameHostSeesOnlyTheirs opens bob's embed, which lists his
// server alone, and themes it from the host.
func anotherUserOfTheSameHostSeesOnlyTheirs(t *testing.T, w *embedWorld) {
	e := openEmbed(t, w.hostURL, url.Values{"user": {"bob"}, "view": {"servers"}})
	e.frame.waitEmbed("live")
	e.frame.waitPresent(rowSel("beta"))
	if got := e.frame.rowNames(); !slices.Equal(got, []string{"beta"}) {
		t.Errorf("bob's embed lists %v, want only beta", got)
	}
	e.host.waitHostEvent("servers", `ev.servers.length === 1 && ev.servers[0].name === "beta"`)

	// The host themes the embed: dark, its own accent; a value that
	// would load something is dropped.
	eval[any](e.host, `sb.setTheme({colorScheme: "dark", properties: {"--sb-accent": "rgb(11, 122, 90)", "--sb-surface": "url(https://evil.example/x.png)"}})`)
	const prop = `getComputedStyle(document.documentElement).getPropertyValue(%s).trim()`
	e.frame.waitJS("the host's accent", fmt.Sprintf(prop, `"--sb-accent"`)+` === "rgb(11, 122, 90)"`)
	e.frame.waitJS("the dark colours", fmt.Sprintf(prop, `"--sb-bg"`)+` === "#0f1216"`)
	if got := eval[string](e.frame, fmt.Sprintf(prop, `"--sb-surface"`)); strings.Contains(got, "url") {
		t.Errorf("the host set --sb-surface to %q", got)
	}
	t.Logf("screenshot: %s", e.host.screenshot("embed-dark"))
	eval[any](e.host, `sb.setTheme({colorScheme: "light"})`)
	e.frame.waitJS("the light colours", fmt.Sprintf(prop, `"--sb-bg"`)+` === "#f4f5f7"`)
}

// anUnlistedSiteIsRefused opens the embed on the site that is not listed:
// the frame says why it is refused, shows nothing and tells the site
// nothing.
func anUnlistedSiteIsRefused(t *testing.T, w *embedWorld) {
	e := openEmbed(t, w.otherURL, url.Values{"user": {"alice"}})
	e.frame.waitPresent("#embed-refused")
	if text := e.frame.text("#embed-refused"); !strings.Contains(text, w.otherURL) || !strings.Contains(text, "not allowed") {
		t.Errorf("the refusal says %q; want it to name %s as not allowed", text, w.otherURL)
	}
	if n := e.frame.count(".server-row"); n != 0 {
		t.Errorf("the refused frame shows %d servers", n)
	}
	if types := eventTypes(e.host.hostEvents()); len(types) != 0 {
		t.Errorf("the unlisted site heard %v", types)
	}
}

// aFreshTokenKeepsTheSocket has the host hand short-lived tokens: the embed
// stays signed in on the socket it has.
func aFreshTokenKeepsTheSocket(t *testing.T, w *embedWorld) {
	// Tokens of 5 s (expiring 4 to 5 s after they are minted, as exp
	// counts whole seconds; long enough for the embed to load on a busy
	// machine): embed.js fetches a fresh one when three quarters of the
	// current one's time are gone, so the third is fetched more than 6 s
	// after the first, which has expired by then.
	e := openEmbed(t, w.hostURL, url.Values{"user": {"alice"}, "view": {"questions"}, "ttl": {"5"}})
	e.frame.waitEmbed("live")
	sockets := e.frame.watchSockets()
	e.host.waitJS("three tokens, the first expired", `window.hostTokens >= 3`)
	e.frame.waitEmbed("live")
	if types := eventTypes(e.host.hostEvents()); slices.Contains(types, "signed-out") {
		t.Errorf("the embed signed out although fresh tokens came: %v", types)
	}
	if created, closed := sockets.counts(); created != 0 || closed != 0 {
		t.Errorf("the embed's socket was replaced (%d opened, %d closed); a fresh token must keep it", created, closed)
	}
}

// anExpiredTokenSignsOutAndAsksTheHost lets the embed's only token expire:
// it signs out and tells the host, and a token handed then signs it in
// again.
func anExpiredTokenSignsOutAndAsksTheHost(t *testing.T, w *embedWorld) {
	// The host hands one token and no token function. The token lives 12 s
	// from the page's load: long enough for the embed to come live on a
	// loaded machine (the wasm compiles meanwhile), short enough to wait for.
	e := openEmbed(t, w.hostURL, url.Values{"user": {"alice"}, "view": {"questions"}, "ttl": {"12"}, "refresh": {"0"}})
	e.frame.waitEmbed("live")
	e.host.waitHostEvent("signed-out", "true")
	e.frame.waitEmbed(string("signed-out"))
	e.frame.waitText("#signed-out", "Sign in again")
	if n := e.frame.count(".ask-card"); n != 0 {
		t.Errorf("the signed-out embed still shows %d questions", n)
	}
	// A token handed now signs the embed in again, on a new socket.
	sockets := e.frame.watchSockets()
	evalAwait[any](e.host, `fetchToken().then(t => sb.setToken(t))`)
	e.frame.waitEmbed("live")
	if created, _ := sockets.counts(); created != 1 {
		t.Errorf("signing in again opened %d sockets, want 1", created)
	}
}

// theQuestionsViewShowsAQuestionAskedDuringACall calls the asking server's
// tool from another socket of alice's and answers its question in the
// questions view of her embed, the host counting the questions.
func theQuestionsViewShowsAQuestionAskedDuringACall(t *testing.T, w *embedWorld, askerID string) {
	e := openEmbed(t, w.hostURL, url.Values{"user": {"alice"}, "view": {"questions"}})
	e.frame.waitEmbed("live")
	e.frame.waitPresent("#no-questions")
	e.host.waitHostEvent("questions", "ev.count === 0")
	// A socket of its own: one left unread since the test began misses
	// the relay's pings (every 30 s) and is closed on a slow run.
	caller, _ := w.hostSocket(t, "alice")
	answer := callAsync(caller, "embed-call-1", wire.CallToolArgs{Server: askerID, Name: "form_boolean"})
	id := e.frame.waitNewCard(wire.AskForm, nil)
	e.host.waitHostEvent("questions", "ev.count === 1")
	e.host.waitText("#host-badge", "1")
	e.frame.waitJS("the card settled", `document.getAnimations().every(a => a.playState !== "running")`)
	t.Logf("screenshot: %s", e.host.screenshot("embed-questions"))
	if n := e.frame.count(".server-row"); n != 0 {
		t.Errorf("the questions view shows %d server rows", n)
	}
	e.frame.fillForm(id, map[string]any{"subscribe": true})
	e.frame.click(cardSel(id) + " .ask-accept")
	e.frame.waitGone(cardSel(id))
	var f wire.Frame
	select {
	case f = <-answer:
	case <-time.After(waitTimeout):
		t.Fatal("the call did not end after the answer")
	}
	text, err := resultText(f)
	if err != nil {
		t.Fatal(err)
	}
	o, err := elicitfixture.ParseOutcome(text)
	if err != nil || o.Action != wire.ActionAccept || o.Content["subscribe"] != true {
		t.Fatalf("the server got %+v (%v), want accept with subscribe", o, err)
	}
	e.host.waitHostEvent("questions", "ev.count === 0")
}

// anAuthorizationCompletesInsideTheEmbed authorizes the protected server
// from the embed's server view, through the authorization server's popup.
func anAuthorizationCompletesInsideTheEmbed(t *testing.T, w *embedWorld, protected string, as *oauthfixture.AuthServer) {
	e := openEmbed(t, w.hostURL, url.Values{"user": {"alice"}, "view": {"server"}, "server": {protected}})
	e.frame.waitEmbed("live")
	e.frame.waitAttr("#server-detail", "data-state", string(wire.StateAuthenticating))
	popup := e.frame.openedPopup("#server-detail .authorize-server")
	popup.click("#approve")
	popup.waitClosed()
	e.frame.waitAttr("#server-detail", "data-state", string(wire.StateReady))
	e.host.waitHostEvent("servers", `ev.servers.some(s => s.id === `+jsString(protected)+` && s.state === "ready")`)
	if st := as.Stats(); st.Codes != 1 {
		t.Errorf("the authorization server exchanged %d codes, want 1", st.Codes)
	}
}

// asList returns the objects of a JSON array, none for anything else.
func asList(v any) []map[string]any {
	items, _ := v.([]any)
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
