package oauth_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/oauth"
)

// testSession is the cookie that signs a test browser in to the relay site.
const testSession = "test_session"

// newSiteWorld is a world whose manager's start page and callback are
// served on 127.0.0.1, as the relay serves them; a browser signs in with
// the testSession cookie.
func newSiteWorld(t *testing.T, asCfg oauthfixture.AuthConfig, rsCfg oauthfixture.ResourceConfig, tweak func(*oauth.Config)) (*world, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(nil)
	t.Cleanup(srv.Close)
	w := newWorldWith(t, asCfg, rsCfg, func(cfg *oauth.Config) {
		cfg.CallbackURL = srv.URL + oauth.CallbackPath
		if tweak != nil {
			tweak(cfg)
		}
	})
	mux := http.NewServeMux()
	// Through w, so that a restart's manager serves.
	mux.Handle(oauth.StartPath, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mgr.StartHandler(sessionUser).ServeHTTP(rw, r)
	}))
	mux.Handle(oauth.CallbackPath, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mgr.CallbackHandler().ServeHTTP(rw, r)
	}))
	srv.Config.Handler = mux
	return w, srv
}

// sessionUser is the signed-in user of a test browser's request.
func sessionUser(r *http.Request) string {
	c, err := r.Cookie(testSession)
	if err != nil {
		return ""
	}
	return c.Value
}

// browser is a person's browser: its cookies, and no automatic redirects.
type browser struct {
	t  *testing.T
	hc *http.Client
}

// newBrowser returns a browser signed in to site as user ("" for nobody).
func newBrowser(t *testing.T, site *httptest.Server, user string) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		u, _ := url.Parse(site.URL)
		jar.SetCookies(u, []*http.Cookie{{Name: testSession, Value: user, Path: "/"}})
	}
	return &browser{t: t, hc: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// get opens u and returns the answer, without following a redirect.
func (b *browser) get(u string) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.hc.Get(u)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// start opens the start page at startURL and returns the authorization
// server's URL it redirects to.
func (b *browser) start(startURL string) string {
	b.t.Helper()
	resp, body := b.get(startURL)
	if resp.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("start page %d: %s", resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}

// authorize starts an authorization of user's server in the browser
// through the start page, approves it at the authorization server and
// returns the callback URL, not yet delivered.
func (b *browser) authorize(w *world, user, server string) (startURL, authURL string, callback *url.URL) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	startURL, err := w.mgr.AuthorizeInBrowser(ctx, user, server)
	if err != nil {
		b.t.Fatalf("AuthorizeInBrowser: %v", err)
	}
	authURL = b.start(startURL)
	callback, err = oauthfixture.Approve(ctx, authURL)
	if err != nil {
		b.t.Fatalf("approve: %v", err)
	}
	return startURL, authURL, callback
}

// cookies returns the cookies the browser sends to u.
func (b *browser) cookies(u string) []*http.Cookie {
	b.t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.hc.Jar.Cookies(parsed)
}
