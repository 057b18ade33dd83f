package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/service"
)

func TestLoginLandsOnLiveDashboard(t *testing.T) {
	r := startRelay(t)
	p := openTab(t)
	link := r.loginURL(t)

	// Without a session the dashboard says so, and how to get one.
	p.navigate(r.URL() + "/")
	p.waitRelay(stateSignedOut)
	p.waitText("#signed-out", "switchboard login")

	p.navigate(link)
	p.waitRelay(stateLive)
	if got := eval[string](p, `location.href`); got != r.URL()+"/" {
		t.Errorf("after login the page is %s, want the dashboard at %s/", got, r.URL())
	}
	p.waitText("#user", service.DefaultLocalUser)
	if got := strings.TrimSpace(p.text("#user")); got != service.DefaultLocalUser {
		t.Errorf("signed-in user shows %q, want %q", got, service.DefaultLocalUser)
	}
	if eval[bool](p, `document.cookie.includes(`+jsString(authn.CookieName)+`)`) {
		t.Error("the session cookie is readable from JavaScript; it must be HttpOnly")
	}

	// The same link a second time, in another browser context: refused, saying why.
	again := openTab(t)
	resp := again.navigateResponse(link)
	if resp.Status != http.StatusGone {
		t.Errorf("second use of the login link: status %d, want %d", resp.Status, http.StatusGone)
	}
	body := strings.ToLower(again.text("body"))
	if !strings.Contains(body, "used") {
		t.Errorf("second use of the login link shows %q, want it to say the link was used", body)
	}
	if n := again.count("#relay-status"); n != 0 {
		t.Error("second use of the login link shows the dashboard")
	}
}
