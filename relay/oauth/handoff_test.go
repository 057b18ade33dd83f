package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// bearerUser stands for the relay's token check: the test's bearer "token"
// is the user it names.
func bearerUser(r *http.Request) string {
	u, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return u
}

// tokenStart posts state to the token start handler as user.
func tokenStart(mgr *oauth.Manager, user, state string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, oauth.StartPath, strings.NewReader(url.Values{"state": {state}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		r.Header.Set("Authorization", "Bearer "+user)
	}
	w := httptest.NewRecorder()
	mgr.TokenStartHandler(bearerUser).ServeHTTP(w, r)
	return w
}

func TestTokenStartBindsThePopupOfTheUserWhoStartedIt(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	startURL, err := w.mgr.AuthorizeInBrowser(context.Background(), "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	state := mustQuery(t, startURL).Get("state")

	for _, c := range []struct {
		user   string
		status int
	}{{"", http.StatusUnauthorized}, {"mallory", http.StatusForbidden}} {
		resp := tokenStart(w.mgr, c.user, state)
		if resp.Code != c.status || len(bindingCookies(resp.Result().Cookies())) != 0 {
			t.Errorf("user %q: status %d with cookies %v, want %d and none", c.user, resp.Code, resp.Result().Cookies(), c.status)
		}
	}

	resp := tokenStart(w.mgr, "ann", state)
	var got struct{ URL string }
	if resp.Code != http.StatusOK || json.Unmarshal(resp.Body.Bytes(), &got) != nil {
		t.Fatalf("status %d: %s", resp.Code, resp.Body)
	}
	if !strings.HasPrefix(got.URL, w.as.Issuer()+"/authorize?") || mustQuery(t, got.URL).Get("state") != state {
		t.Fatalf("url %q, want the authorization server's with the state", got.URL)
	}
	set := bindingCookies(resp.Result().Cookies())
	if len(set) != 1 {
		t.Fatalf("cookies %v, want one binding cookie", resp.Result().Cookies())
	}
	popup := newBrowser(t, site, "")
	u, _ := url.Parse(site.URL + oauth.CallbackPath)
	popup.hc.Jar.SetCookies(u, set)
	callback, err := oauthfixture.Approve(context.Background(), got.URL)
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := popup.get(callback.String()); resp.StatusCode != http.StatusOK {
		t.Fatalf("callback %d: %s", resp.StatusCode, body)
	}
	r.AwaitState(wire.StateReady)
}

func TestHandoffPageRunsOnlyItsOwnScript(t *testing.T) {
	w, _ := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	rec := httptest.NewRecorder()
	w.mgr.HandoffHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, oauth.HandoffPath+"?state=x", nil))
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'sha256-", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("policy %q lacks %q", csp, want)
		}
	}
	body := rec.Body.String()
	if !strings.Contains(body, `"Authorization": "Bearer "`) || strings.Contains(body, "?token") || !strings.Contains(body, "window.opener = null") {
		t.Errorf("the page must send the token in a header, never a URL, and drop its opener before leaving:\n%s", body)
	}
}
