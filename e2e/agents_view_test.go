package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// keyID returns the id of the listed key named name, "" if none.
func (p *tab) keyID(name string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`[...document.querySelectorAll(".sb-key")].find(k => k.querySelector(".sb-key-name")?.textContent === %s)?.dataset.keyId ?? ""`, jsString(name)))
}

// keyOnPageJS is true when the page holds the key given as %[1]s (a JS
// string) in its HTML or in the value of an input.
const keyOnPageJS = `document.documentElement.outerHTML.includes(%[1]s) || [...document.querySelectorAll("input,textarea")].some(e => e.value.includes(%[1]s))`

func TestAgentsViewCreatesAKeyShownOnceAndRevokesIt(t *testing.T) {
	r := startRelay(t)
	fx := fixture.Start(t)
	p := openTab(t)
	p.login(r)
	p.addServer(fixtureName, fx.URL())
	p.waitServer(fixtureName, wire.StateReady)
	id := p.serverID(fixtureName)

	secret := createKeyForServer(t, p, id)
	// The key works, and only on the chosen server.
	checkNewKeyWorks(t, r, secret, id)
	keyID := closeTheNewKey(t, p, secret)
	// The call shows in the activity.
	activityShowsTheKeysCalls(t, r, p, secret, id)
	// Opened afresh, the page lists the key and never shows it again.
	reopenedAgentsPageHidesTheKey(t, r, p, keyID, secret)
	revokeKeyInTheAgentsView(t, r, p, keyID, secret)
	p.checkConsole()
}

// createKeyForServer creates the key "report bot" for the server id in the
// Agents view, and returns the secret the page shows.
func createKeyForServer(t *testing.T, p *tab, id string) string {
	p.click(`#pages a[href="/agents"]`)
	p.waitPresent("#create-key")
	p.waitPresent("#keys-empty")
	p.fill("#key-name", "report bot")
	p.click("#key-scope-chosen")
	p.click("#" + "key-server-" + id)
	p.click("#key-submit")
	p.waitPresent("#new-key-secret")
	secret := eval[string](p, `document.getElementById("new-key-secret").value`)
	if !strings.HasPrefix(secret, store.AgentKeyPrefix) {
		t.Fatalf("the page shows %q as the key", secret)
	}
	p.screenshot("agents-new-key")
	return secret
}

// checkNewKeyWorks checks that secret lists the tools of the server id alone
// and calls one.
func checkNewKeyWorks(t *testing.T, r *relay, secret, id string) {
	if got := r.toolNames(t, secret, ""); len(got) != 2 || !strings.HasPrefix(got[0], id+"__") {
		t.Errorf("tools of the new key = %v, want the fixture's two", got)
	}
	status, body := r.apiDo(t, http.MethodPost, gateway.ToolCallPath, secret, map[string]any{"name": gateway.ToolName(id, fixture.ToolGreet), "arguments": map[string]string{"name": "Bo"}})
	if status != http.StatusOK || !strings.Contains(string(body), fixture.Greeting("Bo")) {
		t.Errorf("call with the new key: %d %s", status, body)
	}
}

// closeTheNewKey waits for the new key in the list, closes its secret with
// Done and checks that the secret is gone from the page; it returns the
// key's id.
func closeTheNewKey(t *testing.T, p *tab, secret string) string {
	p.waitPresent(".sb-key[data-state=active]")
	keyID := p.keyID("report bot")
	if keyID == "" {
		t.Fatal("the new key is not listed")
	}
	p.click("#new-key-done")
	p.waitGone("#new-key-secret")
	p.waitPresent("#create-key")
	if eval[bool](p, fmt.Sprintf(keyOnPageJS, jsString(secret))) {
		t.Error("the key is still on the page after Done")
	}
	return keyID
}

// activityShowsTheKeysCalls checks that the key's call shows in the Activity
// view, that a call made while the view is open shows up at once, and that
// the outcome filter narrows the list.
func activityShowsTheKeysCalls(t *testing.T, r *relay, p *tab, secret, id string) {
	p.click(`#pages a[href="/activity"]`)
	p.waitPresent(`#agent-calls .sb-call[data-outcome=ok]`)
	if agent, tool := p.text(".sb-call .sb-call-agent"), p.text(".sb-call .sb-call-tool"); agent != "report bot" || tool != fixture.ToolGreet {
		t.Errorf("activity row: agent %q tool %q", agent, tool)
	}
	// A call made while the page is open shows up at once, and the filter narrows the list.
	status, body := r.apiDo(t, http.MethodPost, gateway.ToolCallPath, secret, map[string]any{"name": gateway.ToolName(id, fixture.ToolFail)})
	if status != http.StatusOK {
		t.Errorf("call fail: %d %s", status, body)
	}
	p.waitPresent(`#agent-calls .sb-call[data-outcome=tool_error]`)
	p.do("filter by outcome", chromedp.Evaluate[chromedp.Void](`(() => {
		const el = document.getElementById("filter-outcome");
		el.value = "tool_error";
		el.dispatchEvent(new Event("change", {bubbles: true}));
	})()`))
	p.waitGone(`#agent-calls .sb-call[data-outcome=ok]`)
	if n := p.count(`#agent-calls .sb-call`); n != 1 {
		t.Errorf("%d calls shown under the tool_error filter, want 1", n)
	}
	p.screenshot("agent-activity")
}

// reopenedAgentsPageHidesTheKey opens the Agents view afresh: it lists the
// key keyID and never shows its secret again.
func reopenedAgentsPageHidesTheKey(t *testing.T, r *relay, p *tab, keyID, secret string) {
	p.navigate(r.URL() + "/agents")
	p.waitRelay(stateLive)
	p.waitPresent(fmt.Sprintf(`.sb-key[data-key-id=%s][data-state=active]`, jsString(keyID)))
	if eval[bool](p, fmt.Sprintf(keyOnPageJS, jsString(secret))) || p.count("#new-key-secret") != 0 {
		t.Error("the key is shown again after a reload")
	}
}

// revokeKeyInTheAgentsView revokes the key keyID, after which secret is refused.
func revokeKeyInTheAgentsView(t *testing.T, r *relay, p *tab, keyID, secret string) {
	item := fmt.Sprintf(`.sb-key[data-key-id=%s]`, jsString(keyID))
	p.click(item + " .sb-revoke")
	p.click(item + " .sb-revoke-confirm")
	p.waitPresent(item + "[data-state=revoked]")
	if status, _ := r.apiDo(t, http.MethodGet, gateway.ToolsPath, secret, nil); status != http.StatusUnauthorized {
		t.Errorf("the revoked key: status %d, want 401", status)
	}
}
