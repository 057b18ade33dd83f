package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// bindingCookies returns the OAuth binding cookies among cs.
func bindingCookies(cs []*http.Cookie) []*http.Cookie {
	var out []*http.Cookie
	for _, c := range cs {
		if strings.Contains(c.Name, "switchboard_oauth_") {
			out = append(out, c)
		}
	}
	return out
}

func TestAuthorizationStartedInTheDashboardCompletesInThatBrowser(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ann := newBrowser(t, site, "ann")

	startURL, err := w.mgr.AuthorizeInBrowser(context.Background(), "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(startURL, site.URL+oauth.StartPath+"?state=") {
		t.Fatalf("start URL %q, want the relay's start page", startURL)
	}
	resp, body := ann.get(startURL)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), w.as.Issuer()+"/authorize?") {
		t.Fatalf("start page %d to %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if got := mustQuery(t, resp.Header.Get("Location")).Get("state"); got != mustQuery(t, startURL).Get("state") {
		t.Errorf("the authorization server gets state %q, the start page had %q", got, mustQuery(t, startURL).Get("state"))
	}
	set := bindingCookies(resp.Cookies())
	if len(set) != 1 {
		t.Fatalf("start page set cookies %v, want one binding cookie", resp.Cookies())
	}
	c := set[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != oauth.CallbackPath || c.Secure ||
		c.MaxAge <= 0 || c.MaxAge > int(oauth.StateTTL/time.Second) || strings.HasPrefix(c.Name, "__Host-") {
		t.Errorf("binding cookie %+v: want HttpOnly, SameSite=Lax, the callback's path, not Secure on http, at most ten minutes", c)
	}
	if strings.Contains(c.Value, mustQuery(t, startURL).Get("state")) {
		t.Error("the binding cookie holds the state itself")
	}
	if n := len(bindingCookies(ann.cookies(site.URL + "/"))); n != 0 {
		t.Errorf("the binding cookie is sent to %d paths besides the callback", n)
	}

	callback, err := oauthfixture.Approve(context.Background(), resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp, body = ann.get(callback.String())
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "window.close()") {
		t.Fatalf("callback %d: %s", resp.StatusCode, body)
	}
	r.AwaitState(wire.StateReady)
	if left := bindingCookies(ann.cookies(callback.String())); len(left) != 0 {
		t.Errorf("the callback left the binding cookie %v", left)
	}
}

func TestSomeoneElsesAuthorizationLinkAuthorizesNothing(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, mal := w.connect("mallory", "s1", w.rs.URL(), "")
	_, vic := w.connect("victim", "s1", w.rs.URL(), "")
	mal.AwaitState(wire.StateAuthenticating)
	vic.AwaitState(wire.StateAuthenticating)
	mallory, victim := newBrowser(t, site, "mallory"), newBrowser(t, site, "victim")
	ctx := context.Background()

	// Mallory sends the victim the link the dashboard got for her server.
	startURL, err := w.mgr.AuthorizeInBrowser(ctx, "mallory", "s1")
	if err != nil {
		t.Fatal(err)
	}
	resp, body := victim.get(startURL)
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Location") != "" || len(bindingCookies(resp.Cookies())) != 0 {
		t.Errorf("the victim's browser at mallory's start page: %d to %q, cookies %v: %s", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies(), body)
	}
	if strings.Contains(body, w.as.Issuer()) {
		t.Error("the refusal shows the authorization server's URL")
	}

	// Or she opens it herself and sends the authorization server's URL.
	authURL := mallory.start(startURL)
	callback, err := oauthfixture.Approve(ctx, authURL) // the victim approves
	if err != nil {
		t.Fatal(err)
	}
	resp, body = victim.get(callback.String())
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not started in this browser") {
		t.Errorf("the victim's callback %d: %s", resp.StatusCode, body)
	}
	if st := w.as.Stats(); st.Codes != 0 {
		t.Errorf("%d codes exchanged for a callback from the wrong browser", st.Codes)
	}
	if _, ok := w.token("mallory", "s1"); ok {
		t.Fatal("mallory's server got the victim's authorization")
	}
	// The refusal left the state as it was: the browser that started it
	// still completes it.
	if resp, body := mallory.get(callback.String()); resp.StatusCode != http.StatusOK {
		t.Errorf("the starting browser's callback after a refused one: %d %s", resp.StatusCode, body)
	}
	mal.AwaitState(wire.StateReady)
	if _, ok := w.token("victim", "s1"); ok {
		t.Error("the victim got a token")
	}
}

func TestStartPageNeedsTheSignedInUsersOwnLiveAuthorization(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ann := newBrowser(t, site, "ann")
	ctx := context.Background()
	refused := func(what string, b *browser, u string, status int) {
		t.Helper()
		resp, body := b.get(u)
		if resp.StatusCode != status || resp.Header.Get("Location") != "" || len(bindingCookies(resp.Cookies())) != 0 {
			t.Errorf("%s: %d to %q, cookies %v, want %d without a redirect or a cookie: %s",
				what, resp.StatusCode, resp.Header.Get("Location"), resp.Cookies(), status, body)
		}
	}

	startURL, err := w.mgr.AuthorizeInBrowser(ctx, "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	refused("a browser signed in to nobody", newBrowser(t, site, ""), startURL, http.StatusUnauthorized)
	refused("an unknown state", ann, site.URL+oauth.StartPath+"?state=forged", http.StatusForbidden)
	refused("no state", ann, site.URL+oauth.StartPath, http.StatusForbidden)
	if resp, _ := ann.hc.Post(startURL, "text/plain", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the start page: %d", resp.StatusCode)
	}
	// A headless authorization has no start page.
	headless, err := w.mgr.Authorize(ctx, "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	refused("a headless authorization", ann, site.URL+oauth.StartPath+"?state="+mustQuery(t, headless).Get("state"), http.StatusForbidden)

	w.clock.advance(oauth.StateTTL)
	refused("an expired authorization", ann, startURL, http.StatusForbidden)

	// A finished one.
	startURL, _, callback := ann.authorize(w, "ann", "s1")
	if resp, body := ann.get(callback.String()); resp.StatusCode != http.StatusOK {
		t.Fatalf("callback %d: %s", resp.StatusCode, body)
	}
	r.AwaitState(wire.StateReady)
	refused("a finished authorization", ann, startURL, http.StatusForbidden)

	// One of a removed server.
	startURL, err = w.mgr.AuthorizeInBrowser(ctx, "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.mgr.Forget(ctx, "ann", "s1"); err != nil {
		t.Fatal(err)
	}
	refused("an authorization of a removed server", ann, startURL, http.StatusForbidden)
}

func TestCallbackRefusesAForgedBindingCookie(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ann := newBrowser(t, site, "ann")
	_, _, callback := ann.authorize(w, "ann", "s1")
	bound := bindingCookies(ann.cookies(callback.String()))
	if len(bound) != 1 {
		t.Fatalf("binding cookies %v", bound)
	}

	other := newBrowser(t, site, "ann")
	other.hc.Jar.SetCookies(callback, []*http.Cookie{{Name: bound[0].Name, Value: strings.Repeat("0", len(bound[0].Value)), Path: oauth.CallbackPath}})
	if resp, body := other.get(callback.String()); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not started in this browser") {
		t.Errorf("a forged binding cookie: %d %s", resp.StatusCode, body)
	}
	if w.as.Stats().Codes != 0 {
		t.Error("a code was exchanged")
	}
	if resp, body := ann.get(callback.String()); resp.StatusCode != http.StatusOK {
		t.Errorf("the right browser after the forged one: %d %s", resp.StatusCode, body)
	}
	r.AwaitState(wire.StateReady)
}

func TestBindingCookieOfAnHTTPSRelayIsHostOnlyAndSecure(t *testing.T) {
	w := newWorldWith(t, oauthfixture.AuthConfig{}, readScope, func(cfg *oauth.Config) {
		cfg.CallbackURL = "https://relay.example" + oauth.CallbackPath
	})
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	startURL, err := w.mgr.AuthorizeInBrowser(context.Background(), "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(startURL, "https://relay.example"+oauth.StartPath+"?state=") {
		t.Errorf("start URL %q", startURL)
	}
	req := httptest.NewRequest(http.MethodGet, startURL, nil)
	req.AddCookie(&http.Cookie{Name: testSession, Value: "ann"})
	rec := httptest.NewRecorder()
	w.mgr.StartHandler(sessionUser).ServeHTTP(rec, req)
	set := bindingCookies(rec.Result().Cookies())
	if rec.Code != http.StatusSeeOther || len(set) != 1 {
		t.Fatalf("start page %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	c := set[0]
	if !strings.HasPrefix(c.Name, "__Host-") || !c.Secure || c.Path != "/" || c.Domain != "" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Errorf("binding cookie %+v: want __Host-, Secure, Path=/, no Domain, HttpOnly, SameSite=Lax", c)
	}

	// The callback accepts it and clears it.
	callback, err := oauthfixture.Approve(context.Background(), rec.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	req = httptest.NewRequest(http.MethodGet, "https://relay.example"+oauth.CallbackPath+"?"+callback.RawQuery, nil)
	req.AddCookie(c)
	rec = httptest.NewRecorder()
	w.mgr.CallbackHandler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("callback %d: %s", rec.Code, rec.Body)
	}
	cleared := bindingCookies(rec.Result().Cookies())
	if len(cleared) != 1 || cleared[0].Name != c.Name || cleared[0].MaxAge >= 0 || cleared[0].Path != "/" || !cleared[0].Secure {
		t.Errorf("the callback's Set-Cookie %v does not clear the binding cookie", rec.Result().Cookies())
	}
	r.AwaitState(wire.StateReady)
}

func TestStartPagesKeptAreBoundedPerUser(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	_, rb := w.connect("bob", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	rb.AwaitState(wire.StateAuthenticating)
	ctx := context.Background()
	bobs, err := w.mgr.AuthorizeInBrowser(ctx, "bob", "s1")
	if err != nil {
		t.Fatal(err)
	}
	const kept = 16 // maxStartsPerUser
	var urls []string
	for range kept + 1 {
		u, err := w.mgr.AuthorizeInBrowser(ctx, "ann", "s1")
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
		w.clock.advance(time.Millisecond) // distinct ages
	}
	ann := newBrowser(t, site, "ann")
	if resp, _ := ann.get(urls[0]); resp.StatusCode != http.StatusForbidden {
		t.Errorf("ann's oldest start page past the bound: %d, want refused", resp.StatusCode)
	}
	for _, u := range urls[1:] {
		if resp, body := ann.get(u); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("one of ann's latest %d start pages: %d %s", kept, resp.StatusCode, body)
		}
	}
	if resp, _ := newBrowser(t, site, "bob").get(bobs); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("ann's authorizations pushed out bob's: %d", resp.StatusCode)
	}
}
