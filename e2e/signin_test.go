package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/relay/signin"
	"github.com/switchboard-mcp/switchboard/relay/signin/signintest"
)

// The identity provider's people: two of the team, one from elsewhere.
var (
	idpAnn = signintest.User{ID: "ann-id", Username: "ann", Password: "ann-pw", Email: "ann@team.example", EmailVerified: true}
	idpBob = signintest.User{ID: "bob-id", Username: "bob", Password: "bob-pw", Email: "bob@team.example", EmailVerified: true}
	idpEve = signintest.User{ID: "eve-id", Username: "eve", Password: "eve-pw", Email: "eve@other.example", EmailVerified: true}
)

// startSignInRelay starts a relay whose people sign in with a provider
// run by the test, admitting the domain team.example.
func startSignInRelay(t *testing.T) (*relay, *signintest.Provider) {
	t.Helper()
	var idp *signintest.Provider
	r := startRelayWith(t, func(c *service.Config) {
		idp = signintest.Start(t, c.PublicURL+signin.CallbackPath, c.PublicURL+"/login", idpAnn, idpBob, idpEve)
		c.SignIn = &signin.Settings{Issuer: idp.Issuer, ClientID: idp.ClientID, ClientSecret: idp.ClientSecret, AllowedDomains: []string{"team.example"}}
	})
	return r, idp
}

// signInAs goes from the relay's login page through the provider's login
// form as u.
func (p *tab) signInAs(r *relay, u signintest.User) {
	p.t.Helper()
	p.navigate(r.URL() + "/login")
	p.waitText("#signin-provider", "Sign in with 127.0.0.1")
	p.clickAndLoad("#signin-provider")
	p.fill("#username", u.Username)
	p.fill("#password", u.Password)
	p.clickAndLoad("button[type=submit]")
}

// waitSignedIn waits for the dashboard that the signed-in page opens
// (it refreshes to "/" once loaded) and for its live connection.
func (p *tab) waitSignedIn() {
	p.t.Helper()
	p.waitLoadedAt("/")
	p.waitRelay(stateLive)
}

// waitLoadedAt waits until the tab has loaded a page at path, through
// navigations the page itself makes.
func (p *tab) waitLoadedAt(path string) {
	p.t.Helper()
	waitUntil(p.t, "a page at "+path, func() bool {
		at, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`location.pathname === `+jsString(path)+` && document.readyState === "complete"`))
		return err == nil && at
	})
}

// clickAndLoad clicks sel and waits for the page the click navigates to.
func (p *tab) clickAndLoad(sel string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.t.Fatalf("click %s and load: %v\n%s", sel, err, p.describe())
	}
}

func TestSignInWithTheTeamsProviderShowsOnesOwnServersAndSignsOut(t *testing.T) {
	r, idp := startSignInRelay(t)
	fx := fixture.Start(t)

	ann := openTab(t)
	ann.signInAs(r, idpAnn)
	ann.waitSignedIn()
	ann.waitText("#user", idp.Issuer+"#"+idpAnn.ID)
	ann.addServer("anns-server", fx.URL())

	// Bob, in another browser, sees his own (empty) list, not Ann's.
	bob := openTab(t)
	bob.signInAs(r, idpBob)
	bob.waitSignedIn()
	bob.waitText("#user", idp.Issuer+"#"+idpBob.ID)
	bob.waitServersRendered()
	if n := bob.count(rowSel("anns-server")); n != 0 {
		t.Errorf("Bob sees Ann's server")
	}

	// Ann signs out: by way of the provider, back at the login page, and
	// the dashboard is signed out.
	// The way back passes pages that go on by themselves: the wait reads
	// whichever page is there, until it is the login page.
	ann.click("#sign-out")
	waitUntil(t, "the login page offering the provider", func() bool {
		at, err := chromedp.Run(ann.ctx, chromedp.Evaluate[bool](`location.pathname === "/login" && document.readyState === "complete" &&
			(document.querySelector("#signin-provider")?.textContent ?? "").includes("Sign in with")`))
		return err == nil && at
	})
	ann.navigate(r.URL() + "/")
	ann.waitRelay(stateSignedOut)
	if n := bob.count(rowSel("anns-server")); n != 0 {
		t.Errorf("Bob sees Ann's server")
	}
}

func TestSignInRefusesADisallowedDomainWithAClearPage(t *testing.T) {
	r, _ := startSignInRelay(t)
	eve := openTab(t)
	eve.signInAs(r, idpEve)
	eve.waitText("h1", "Not allowed")
	body := eve.text("body")
	if !strings.Contains(body, "other.example") || strings.Contains(body, "eyJ") {
		t.Errorf("the refusal page says %q; want the domain named and no token", body)
	}
	eve.navigate(r.URL() + "/")
	eve.waitRelay(stateSignedOut)
}
