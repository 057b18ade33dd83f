package e2e

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// shortTokenLifetime is the access-token lifetime of the refresh test.
const shortTokenLifetime = 2 * time.Second

// greeting is what the tests have the protected server's echo tool say.
const greeting = "hello through OAuth"

func TestAuthorizeInPopupThenReady(t *testing.T) {
	w := startOAuthWorld(t, oauthfixture.AuthConfig{}, false)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(w.r)

	p.addServer(protectedName, w.rs.URL())
	row := rowSel(protectedName)
	p.waitServer(protectedName, wire.StateAuthenticating)
	p.waitText(row+" .state-badge", string(wire.StateAuthenticating))
	p.waitPresent(row + " .authorize-server")
	eval[any](p, setReloadMarker)

	popup := p.authorizeFrom(row)
	if got := popup.text("#resource"); got != w.rs.URL() {
		t.Errorf("the consent page asks for the resource %q, want the server %q", got, w.rs.URL())
	}
	popup.click("#approve")
	popup.waitClosed()

	p.waitServer(protectedName, wire.StateReady)
	p.waitText(row+" .count-tools", "2")
	if n := p.count(row + " .authorize-server"); n != 0 {
		t.Errorf("the ready row still offers Authorize (%d buttons)", n)
	}
	p.openServer(protectedName)
	p.waitTools(oauthfixture.ToolEcho, oauthfixture.ToolAdmin)
	p.callTool(oauthfixture.ToolEcho, `{"text":"`+greeting+`"}`)
	p.waitResult(oauthfixture.ToolEcho, callOK, greeting)
	if !eval[bool](p, checkReloadMarker) {
		t.Error("the page reloaded to show the authorized server; it must update in place")
	}
	if st := w.as.Stats(); st.Authorizations != 1 || st.Codes != 1 {
		t.Errorf("the authorization server saw %d authorization requests and %d code exchanges, want 1 and 1", st.Authorizations, st.Codes)
	}
	frames.checkNoSecrets(t, w.as.Secrets(), protectedName)
}

func TestDenyShowsFailedWithReason(t *testing.T) {
	w := startOAuthWorld(t, oauthfixture.AuthConfig{}, false)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(w.r)
	p.addServer(protectedName, w.rs.URL())
	p.waitServer(protectedName, wire.StateAuthenticating)
	p.openServer(protectedName)

	popup := p.authorizeFrom("#server-detail")
	popup.click("#deny")
	page := popup.waitBodyText("Authorization failed")
	if !strings.Contains(page, "access_denied") {
		t.Errorf("the popup does not say the authorization server denied access: %q", page)
	}

	// The dashboard says why, in the row and the detail, and offers to try again.
	row := rowSel(protectedName)
	p.waitText(row+" .auth-error", "access_denied")
	p.waitText("#server-detail .auth-error", "access_denied")
	if got := eval[string](p, `document.querySelector(`+jsString(row)+`).dataset.state`); wire.ServerState(got) != wire.StateAuthenticating {
		t.Errorf("after a denial the server is %q, want %q", got, wire.StateAuthenticating)
	}
	t.Logf("after the denial the row says: %q", p.text(row+" .auth-error"))
	if n := p.count(row + " .authorize-server"); n != 1 {
		t.Fatalf("after a denial the row offers %d Authorize buttons, want 1", n)
	}
	if st := w.as.Stats(); st.Codes != 0 {
		t.Errorf("a denied authorization exchanged %d codes", st.Codes)
	}

	// The failure page stays open; Authorize again reuses its window (the
	// dashboard opens every authorization in one named popup).
	p.click(row + " .authorize-server")
	popup.do("the consent page again in the same popup", chromedp.WaitVisible(chromedp.CSS("#approve")))
	popup.click("#approve")
	popup.waitClosed()
	p.waitServer(protectedName, wire.StateReady)
	if n := p.count(row + " .auth-error"); n != 0 {
		t.Errorf("the authorized server still shows the old denial: %q", p.text(row+" .auth-error"))
	}
	frames.checkNoSecrets(t, w.as.Secrets(), protectedName)
}

func TestAuthorizationSurvivesRelayRestart(t *testing.T) {
	w := startOAuthWorld(t, oauthfixture.AuthConfig{}, true)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(w.r)
	p.addServer(protectedName, w.rs.URL())
	p.waitServer(protectedName, wire.StateAuthenticating)
	p.openServer(protectedName)

	// The pre-registered client, entered on the Info tab: the secret is
	// write-only, so the page forgets it and only says that one is set.
	p.saveClient(w.client.ID, w.client.Secret)
	if v := eval[string](p, `document.querySelector("#client-secret").value`); v != "" {
		t.Error("the secret input still holds the secret after saving")
	}
	p.waitJS("the Info tab saying a client secret is set", `[...document.querySelectorAll("#server-detail .info-row")].some(r =>
		r.querySelector("dt")?.textContent === "Client secret" && r.querySelector("dd")?.textContent === "set")`)

	row := rowSel(protectedName)
	popup := p.authorizeFrom(row)
	if got := popup.text("#client"); got != w.client.ID {
		t.Errorf("the consent page names the client %q, want the pre-registered %q", got, w.client.ID)
	}
	popup.click("#approve")
	popup.waitClosed()
	p.waitServer(protectedName, wire.StateReady)
	before := w.as.Stats()
	if before.Registrations != 0 {
		t.Errorf("the relay registered %d clients dynamically although one was entered", before.Registrations)
	}
	if !slices.ContainsFunc(w.as.TokenRequests(), func(r oauthfixture.TokenRequest) bool {
		return r.GrantType == "authorization_code" && r.ClientID == w.client.ID && r.AuthMethod == oauthfixture.MethodBasic && r.Error == ""
	}) {
		t.Errorf("no code exchange authenticated as the pre-registered client: %+v", w.as.TokenRequests())
	}

	p.watchStates(protectedName)
	w.r.stop()
	p.waitRelay(stateReconnecting)
	w.r.start()
	p.waitRelay(stateLive)
	p.waitServer(protectedName, wire.StateReady)
	p.click("#tab-tools")
	p.waitTools(oauthfixture.ToolEcho, oauthfixture.ToolAdmin)
	p.callTool(oauthfixture.ToolEcho, `{"text":"`+greeting+`"}`)
	p.waitResult(oauthfixture.ToolEcho, callOK, greeting)

	after := w.as.Stats()
	if after.Authorizations != before.Authorizations || after.Codes != before.Codes {
		t.Errorf("the restarted relay needed a new consent: authorization requests %d → %d, codes %d → %d",
			before.Authorizations, after.Authorizations, before.Codes, after.Codes)
	}
	if states := p.states(); slices.Contains(states, wire.StateAuthenticating) {
		t.Errorf("across the restart the row asked for authorization again: states %v", states)
	}
	frames.checkNoSecrets(t, w.as.Secrets(), protectedName)
}

func TestExpiredAccessTokenIsRefreshedSilently(t *testing.T) {
	w := startOAuthWorld(t, oauthfixture.AuthConfig{TokenLifetime: shortTokenLifetime}, false)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(w.r)
	p.addServer(protectedName, w.rs.URL())
	p.waitServer(protectedName, wire.StateAuthenticating)
	row := rowSel(protectedName)
	popup := p.authorizeFrom(row)
	popup.click("#approve")
	popup.waitClosed()
	p.waitServer(protectedName, wire.StateReady)
	p.watchStates(protectedName)

	first := firstAccessToken(t, w.as)
	info, ok := w.as.Verify(first)
	if !ok {
		t.Fatal("the authorization server does not know the first access token it issued")
	}
	// Time itself is what the test waits for: the first token's expiry.
	<-time.After(time.Until(info.Expires))

	p.openServer(protectedName)
	p.waitTools(oauthfixture.ToolEcho, oauthfixture.ToolAdmin)
	p.callTool(oauthfixture.ToolEcho, `{"text":"`+greeting+`"}`)
	p.waitResult(oauthfixture.ToolEcho, callOK, greeting)

	st := w.as.Stats()
	if st.Refreshes == 0 {
		t.Error("the authorization server saw no refresh_token grant")
	}
	if st.Authorizations != 1 {
		t.Errorf("the authorization server saw %d authorization requests, want the first one only", st.Authorizations)
	}
	for _, r := range w.as.TokenRequests() {
		if r.Error != "" {
			t.Errorf("a %s grant was refused: %s", r.GrantType, r.Error)
		}
	}
	last := lastAccepted(w.rs)
	if last.Token == first {
		t.Error("the server still accepted the expired first token")
	}
	if states := p.states(); slices.Contains(states, wire.StateAuthenticating) {
		t.Errorf("the row asked for authorization again: states %v", states)
	}
	if n := p.count(row + " .authorize-server"); n != 0 {
		t.Errorf("the row offers Authorize (%d buttons) after the token expired", n)
	}
	frames.checkNoSecrets(t, w.as.Secrets(), protectedName)
}

func TestRemovingServerDeletesItsTokens(t *testing.T) {
	w := startOAuthWorld(t, oauthfixture.AuthConfig{}, true)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(w.r)
	p.addServer(protectedName, w.rs.URL())
	p.waitServer(protectedName, wire.StateAuthenticating)
	p.openServer(protectedName)
	p.saveClient(w.client.ID, w.client.Secret)
	row := rowSel(protectedName)
	popup := p.authorizeFrom(row)
	popup.click("#approve")
	popup.waitClosed()
	p.waitServer(protectedName, wire.StateReady)

	id := p.serverID(protectedName)
	before := oauthRows(t, w.r.cfg.DataDir, id)
	if before["oauth_tokens"] != 1 || before["oauth_clients"] != 1 || before["oauth_states"] == 0 {
		t.Fatalf("before the removal the store holds %v for the server, want a token, a client and a state", before)
	}

	p.click(row + " .remove-server")
	p.click(row + " .confirm-remove")
	p.waitGone(row)
	var left map[string]int
	waitFor(t, "the server's OAuth rows to go", func() bool {
		left = oauthRows(t, w.r.cfg.DataDir, id)
		return left["oauth_tokens"]+left["oauth_clients"]+left["oauth_states"] == 0
	})
	frames.checkNoSecrets(t, w.as.Secrets(), protectedName)
}

func TestBlockedAuthorizePopupOffersALink(t *testing.T) {
	w := startOAuthWorld(t, oauthfixture.AuthConfig{}, false)
	p := openTab(t)
	frames := p.recordFrames()
	p.login(w.r)
	p.addServer(protectedName, w.rs.URL())
	p.waitServer(protectedName, wire.StateAuthenticating)
	row := rowSel(protectedName)

	// A click the page makes itself, once the person's last gesture has
	// lapsed, has no user activation: the popup blocker stops window.open.
	p.waitNoUserActivation()
	eval[any](p, `document.querySelector(`+jsString(row+" .authorize-server")+`).click()`)
	p.waitPresent(row + " .authorize-link")
	href := eval[string](p, `document.querySelector(`+jsString(row+" .authorize-link")+`).href`)
	startPage(t, href, w)

	// Following the link authorizes as the popup would have (the start
	// page sends the tab on to the consent page), and the tab it opened
	// closes itself too.
	signIn := p.followLink(row + " .authorize-link")
	signIn.click("#approve")
	signIn.waitClosed()
	p.waitServer(protectedName, wire.StateReady)
	if n := p.count(row + " .authorize-link"); n != 0 {
		t.Errorf("the ready row still offers the sign-in link (%d)", n)
	}
	frames.checkNoSecrets(t, w.as.Secrets(), protectedName)
}

// firstAccessToken is the first token the relay sent the protected server.
func firstAccessToken(t testing.TB, as *oauthfixture.AuthServer) string {
	t.Helper()
	for _, s := range as.Secrets() {
		if kindOf(s) == "at" {
			return s
		}
	}
	t.Fatal("the authorization server issued no access token")
	return ""
}

// lastAccepted is the last request the protected server let through to MCP.
func lastAccepted(rs *oauthfixture.Resource) oauthfixture.ResourceRequest {
	reqs := rs.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Status == 0 && reqs[i].Token != "" {
			return reqs[i]
		}
	}
	return oauthfixture.ResourceRequest{}
}

// startPage checks that href is the relay's start page of an
// authorization: the dashboard never gets the authorization server's URL
// itself, so that only this browser can complete it.
func startPage(t testing.TB, href string, w *oauthWorld) {
	t.Helper()
	u, err := url.Parse(href)
	if err != nil {
		t.Fatalf("authorization link %q: %v", href, err)
	}
	if !strings.HasPrefix(href, w.r.cfg.PublicURL+oauth.StartPath+"?") || u.Query().Get("state") == "" {
		t.Errorf("the link is not the relay's start page of an authorization: %s", href)
	}
}
