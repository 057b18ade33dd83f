package e2e

import (
	"strings"
	"testing"

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
	p.click("#signin-provider")
	p.waitPresent("#username")
	p.fill("#username", u.Username)
	p.fill("#password", u.Password)
	p.click("button[type=submit]")
}

func TestSignInWithTheTeamsProviderShowsOnesOwnServersAndSignsOut(t *testing.T) {
	r, idp := startSignInRelay(t)
	fx := fixture.Start(t)

	ann := openTab(t)
	ann.signInAs(r, idpAnn)
	ann.waitRelay(stateLive)
	ann.waitText("#user", idp.Issuer+"#"+idpAnn.ID)
	ann.addServer("anns-server", fx.URL())

	// Bob, in another browser, sees his own (empty) list, not Ann's.
	bob := openTab(t)
	bob.signInAs(r, idpBob)
	bob.waitRelay(stateLive)
	bob.waitText("#user", idp.Issuer+"#"+idpBob.ID)
	bob.waitServersRendered()
	if n := bob.count(rowSel("anns-server")); n != 0 {
		t.Errorf("Bob sees Ann's server")
	}

	// Ann signs out: by way of the provider, back at the login page, and
	// the dashboard is signed out.
	ann.click("#sign-out")
	ann.waitText("#signin-provider", "Sign in with")
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
