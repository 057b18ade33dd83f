package oauth_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// callbackErr delivers callback and returns its error, which must be a
// *oauth.CallbackError.
func callbackErr(t *testing.T, w *world, callback *url.URL) error {
	t.Helper()
	err := w.mgr.Callback(context.Background(), callback)
	var ce *oauth.CallbackError
	if err != nil && !errors.As(err, &ce) {
		t.Fatalf("Callback error %v (%T) is not a *CallbackError", err, err)
	}
	return err
}

func TestCallbackRejectsReplayedState(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	if err := callbackErr(t, w, callback); err != nil {
		t.Fatal(err)
	}
	r.AwaitState(wire.StateReady)
	before, _ := w.token("ann", "s1")
	codes := w.as.Stats().Codes

	err := callbackErr(t, w, callback)
	if err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("replayed callback: %v", err)
	}
	after, _ := w.token("ann", "s1")
	if after.AccessToken != before.AccessToken || w.as.Stats().Codes != codes {
		t.Error("a replayed callback changed the token or exchanged a code")
	}
}

func TestCallbackRejectsExpiredStateWithoutChangingAnything(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	w.clock.advance(oauth.StateTTL)
	err := callbackErr(t, w, callback)
	if err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired callback: %v", err)
	}
	if w.as.Stats().Codes != 0 {
		t.Error("an expired state's code was exchanged")
	}
	if _, ok := w.token("ann", "s1"); ok {
		t.Error("an expired callback stored a token")
	}

	// Just inside ten minutes it works.
	_, callback = w.authorize("ann", "s1")
	w.clock.advance(oauth.StateTTL - time.Second)
	if err := callbackErr(t, w, callback); err != nil {
		t.Fatalf("callback inside the deadline: %v", err)
	}
	r.AwaitState(wire.StateReady)
}

func TestCallbackMustMatchTheCallbackOriginAndPath(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	for _, mutate := range []func(*url.URL){
		func(u *url.URL) { u.Path = "/other/callback" },
		func(u *url.URL) { u.Host = "127.0.0.1:2" },
		func(u *url.URL) { u.Host = "evil.example:1" },
		func(u *url.URL) { u.Scheme = "https" },
	} {
		wrong := *callback
		mutate(&wrong)
		err := callbackErr(t, w, &wrong)
		if err == nil || !strings.Contains(err.Error(), "does not match") {
			t.Errorf("callback at %s: %v, want a refusal", wrong.String(), err)
		}
	}
	if w.as.Stats().Codes != 0 {
		t.Error("a misdirected callback exchanged the code")
	}
	// The refused callbacks did not consume the state.
	if err := callbackErr(t, w, callback); err != nil {
		t.Fatalf("the right callback after refused ones: %v", err)
	}
	r.AwaitState(wire.StateReady)
}

func TestCallbackWithUnknownOrMissingStateChangesNothing(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	for _, q := range []url.Values{
		{"code": {callback.Query().Get("code")}},
		{"code": {callback.Query().Get("code")}, "state": {"forged"}},
		{"code": {callback.Query().Get("code")}, "state": {strings.Repeat("s", 1000)}},
	} {
		u := *callback
		u.RawQuery = q.Encode()
		if err := callbackErr(t, w, &u); err == nil {
			t.Errorf("callback %s accepted", u.RawQuery)
		}
	}
	if w.as.Stats().Codes != 0 {
		t.Error("a code was exchanged")
	}
}

func TestStateIsBoundToItsUserAndServer(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, ann := w.connect("ann", "s1", w.rs.URL(), "")
	_, bob := w.connect("bob", "s1", w.rs.URL(), "")
	ann.AwaitState(wire.StateAuthenticating)
	bob.AwaitState(wire.StateAuthenticating)

	w.complete("ann", "s1")
	ann.AwaitState(wire.StateReady)
	if _, ok := w.token("bob", "s1"); ok {
		t.Fatal("ann's authorization gave bob a token")
	}
	if st, _ := w.mgr.For("bob", "s1", w.rs.URL()).Watch(); !st.Required || st.Authorized {
		t.Errorf("bob's status %+v after ann authorized", st)
	}
	w.complete("bob", "s1")
	bob.AwaitState(wire.StateReady)
	annTok, _ := w.token("ann", "s1")
	bobTok, _ := w.token("bob", "s1")
	if annTok.AccessToken == bobTok.AccessToken || annTok.ClientID == bobTok.ClientID {
		t.Error("ann and bob share a token or a client registration")
	}
}

func TestDeniedAuthorizationIsShownAndTheServerKeepsWaiting(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ctx := context.Background()
	u, err := w.mgr.Authorize(ctx, "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	callback, err := oauthfixture.Deny(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if err := callbackErr(t, w, callback); err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("denied callback: %v", err)
	}
	denied := r.Await("the denial", func(s conn.State) bool { return s.Auth != nil && s.Auth.Error != "" })
	if denied.State != wire.StateAuthenticating || !strings.Contains(denied.Auth.Error, "access_denied") {
		t.Errorf("state %s, auth %+v", denied.State, denied.Auth)
	}
	// A new authorization clears the error and succeeds.
	w.complete("ann", "s1")
	ready := r.AwaitState(wire.StateReady)
	if ready.Auth.Error != "" {
		t.Errorf("error %q after success", ready.Auth.Error)
	}
}

func TestLatePopupAfterSuccessIsHarmless(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ctx := context.Background()
	late, err := w.mgr.Authorize(ctx, "ann", "s1") // a first popup, left open
	if err != nil {
		t.Fatal(err)
	}
	w.complete("ann", "s1") // a second one succeeds
	r.AwaitState(wire.StateReady)
	token, _ := w.token("ann", "s1")

	lateCallback, err := oauthfixture.Deny(ctx, late)
	if err != nil {
		t.Fatal(err)
	}
	if err := callbackErr(t, w, lateCallback); err == nil {
		t.Fatal("the late denial reported success")
	}
	st, _ := w.mgr.For("ann", "s1", w.rs.URL()).Watch()
	if !st.Authorized || st.Required || st.Error != "" {
		t.Errorf("status after the late popup %+v", st)
	}
	if now, _ := w.token("ann", "s1"); now.AccessToken != token.AccessToken {
		t.Error("the late popup replaced the token")
	}
	echo(t, c, "unaffected")
}

func TestCallbackHandlerShowsClosingPageOrEscapedError(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, nil)
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ann := newBrowser(t, site, "ann")

	_, _, callback := ann.authorize(w, "ann", "s1")
	resp, body := ann.get(callback.String())
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "window.close()") {
		t.Errorf("success page %d: %s", resp.StatusCode, body)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'sha256-") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", resp.Header)
	}
	r.AwaitState(wire.StateReady)

	// An error from the authorization server is sanitized and escaped.
	startURL, err := w.mgr.AuthorizeInBrowser(context.Background(), "ann", "s1")
	if err != nil {
		t.Fatal(err)
	}
	authURL := ann.start(startURL)
	evil := *callback
	evil.RawQuery = url.Values{"state": {mustQuery(t, authURL).Get("state")}, "error": {"access_denied"},
		"error_description": {"<script>alert(1)</script>\x1b[31m\u202egnp.exe"}}.Encode()
	resp, body = ann.get(evil.String())
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(body, "<script>alert") || strings.Contains(body, "\u202e") || strings.Contains(body, "\x1b") {
		t.Errorf("error page %d: %s", resp.StatusCode, body)
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") || strings.Contains(body, "window.close") {
		t.Errorf("error page does not show the escaped reason or closes itself: %s", body)
	}
	resp, body = get(t, evil.String()) // replayed, from a browser without the binding
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not started in this browser") {
		t.Errorf("replay page %d: %s", resp.StatusCode, body)
	}
}

func TestCallbackHandlerRedirectsToConfiguredDestinations(t *testing.T) {
	w, site := newSiteWorld(t, oauthfixture.AuthConfig{}, readScope, func(cfg *oauth.Config) {
		cfg.SuccessURL = "https://app.example/done"
		cfg.ErrorURL = "https://app.example/failed?from=relay"
	})
	_, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	ann := newBrowser(t, site, "ann")

	_, _, callback := ann.authorize(w, "ann", "s1")
	resp, _ := ann.get(callback.String())
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "https://app.example/done" {
		t.Errorf("success: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = getNoFollow(t, callback.String())
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Host != "app.example" || loc.Query().Get("from") != "relay" || !strings.Contains(loc.Query().Get("error"), "not started in this browser") {
		t.Errorf("failure: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A start page that refuses goes there too.
	resp, _ = newBrowser(t, site, "").get(site.URL + oauth.StartPath + "?state=x")
	loc, _ = url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Host != "app.example" || !strings.Contains(loc.Query().Get("error"), "not signed in") {
		t.Errorf("refused start: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func get(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func getNoFollow(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestCallbackAfterARelayRestartStillCompletes(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, readScope)
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, callback := w.authorize("ann", "s1")
	c.Close()

	w.restart()
	c, r = w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	if err := callbackErr(t, w, callback); err != nil {
		t.Fatalf("callback after restart: %v", err)
	}
	r.AwaitState(wire.StateReady)
	echo(t, c, "across a restart")
}

func TestCallbackChecksTheIssuerParameter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		advertised bool
		iss        func(issuer string) (string, bool) // the iss to send, and whether to send one
		ok         bool
	}{
		{"advertised and right", true, func(i string) (string, bool) { return i, true }, true},
		{"advertised and missing", true, func(string) (string, bool) { return "", false }, false},
		{"advertised and wrong", true, func(string) (string, bool) { return "https://evil.example", true }, false},
		{"not advertised and absent", false, func(string) (string, bool) { return "", false }, true},
		{"not advertised and wrong", false, func(string) (string, bool) { return "https://evil.example", true }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, oauthfixture.AuthConfig{IssParameter: tc.advertised}, readScope)
			_, r := w.connect("ann", "s1", w.rs.URL(), "")
			r.AwaitState(wire.StateAuthenticating)
			_, callback := w.authorize("ann", "s1")
			q := callback.Query()
			q.Del("iss")
			if iss, send := tc.iss(w.as.Issuer()); send {
				q.Set("iss", iss)
			}
			callback.RawQuery = q.Encode()
			err := callbackErr(t, w, callback)
			if (err == nil) != tc.ok {
				t.Fatalf("callback: %v, want ok %v", err, tc.ok)
			}
			if got := w.as.Stats().Codes; (got == 1) != tc.ok {
				t.Errorf("%d codes exchanged", got)
			}
		})
	}
}
