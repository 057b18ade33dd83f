package signin_test

import (
	"context"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/signin"
	"github.com/switchboard-mcp/switchboard/relay/signin/signintest"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

// The provider's people.
var (
	ann = signintest.User{ID: "ann-id", Username: "ann", Password: "ann-pw", Email: "ann@team.example", EmailVerified: true, Groups: []string{"eng"}}
	bob = signintest.User{ID: "bob-id", Username: "bob", Password: "bob-pw", Email: "bob@team.example", EmailVerified: false, Groups: []string{"sales"}}
	eve = signintest.User{ID: "eve-id", Username: "eve", Password: "eve-pw", Email: "eve@other.example", EmailVerified: true, Groups: []string{"eng"}}
)

// testSessions keeps the signed-in user in a plain cookie: the relay's own
// sessions are tested in authn and service.
type testSessions struct{}

const testCookie = "test_session"

func (testSessions) Start(w http.ResponseWriter, _ *http.Request, user string) error {
	http.SetCookie(w, &http.Cookie{Name: testCookie, Value: url.QueryEscape(user), Path: "/"})
	return nil
}

func (testSessions) End(w http.ResponseWriter, r *http.Request) string {
	http.SetCookie(w, &http.Cookie{Name: testCookie, Path: "/", MaxAge: -1})
	c, err := r.Cookie(testCookie)
	if err != nil {
		return ""
	}
	u, _ := url.QueryUnescape(c.Value)
	return u
}

// relay is sign-in under test, served on loopback with its provider.
type relay struct {
	url    string
	idp    *signintest.Provider
	p      *signin.Provider
	tokens *store.IdentityTokens
}

func startRelay(t *testing.T, s signin.Settings) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	idp := signintest.Start(t, base+signin.CallbackPath, base+"/login", ann, bob, eve)
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s.Issuer, s.ClientID, s.ClientSecret = idp.Issuer, idp.ClientID, idp.ClientSecret
	tokens := st.IdentityTokens(st.Sealer())
	p, err := signin.New(context.Background(), signin.Config{Settings: s, PublicURL: base, Tokens: tokens, Sessions: testSessions{}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.Handle(mux)
	mux.HandleFunc("POST /logout", p.Logout)
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "login page") })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(testCookie)
		if err != nil {
			http.Error(w, "not signed in", http.StatusUnauthorized)
			return
		}
		u, _ := url.QueryUnescape(c.Value)
		io.WriteString(w, "signed in as "+u)
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &relay{url: base, idp: idp, p: p, tokens: tokens}
}

// browser is an HTTP client with cookies.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

// signIn starts a sign-in at the relay, fills the provider's login form
// for u and returns the relay's last answer.
func signIn(t *testing.T, c *http.Client, r *relay, u signintest.User) (int, string) {
	t.Helper()
	res, err := c.Get(r.url + signin.StartPath)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	id := res.Request.URL.Query().Get("authRequestID")
	if !strings.HasPrefix(res.Request.URL.String(), r.idp.Issuer) || id == "" {
		t.Fatalf("sign-in did not reach the provider's login page: %s", res.Request.URL)
	}
	res, err = c.PostForm(r.idp.Issuer+"/login/username", url.Values{"username": {u.Username}, "password": {u.Password}, "id": {id}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !strings.HasPrefix(res.Request.URL.String(), r.url+signin.CallbackPath) {
		t.Fatalf("the provider did not come back to the relay: at %s: %s", res.Request.URL, body)
	}
	return res.StatusCode, string(body)
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

func TestSignInNamesTheUserByIssuerAndSubjectAndKeepsTheTokens(t *testing.T) {
	r := startRelay(t, signin.Settings{AllowedDomains: []string{"team.example"}})
	c := browser(t)
	if code, body := signIn(t, c, r, ann); code != http.StatusOK || !strings.Contains(body, "Signed in") {
		t.Fatalf("ann's sign-in: %d %s", code, body)
	}
	want := r.idp.Issuer + "#" + ann.ID
	if code, body := get(t, c, r.url+"/"); code != http.StatusOK || body != "signed in as "+want {
		t.Fatalf("after sign-in: %d %q, want signed in as %s", code, body, want)
	}
	tok, ok, err := r.tokens.Get(context.Background(), want)
	if err != nil || !ok || tok.IDToken == "" || tok.RefreshToken == "" || time.Until(tok.Expiry) <= 0 {
		t.Fatalf("kept tokens: %+v %v %v", tok, ok, err)
	}
	got, err := r.p.IDToken(context.Background(), want)
	if err != nil || got != tok.IDToken {
		t.Errorf("IDToken of a fresh sign-in = %v; want the kept token", err)
	}
}

func TestAnExpiredIDTokenIsRenewedWithTheRefreshToken(t *testing.T) {
	r := startRelay(t, signin.Settings{})
	c := browser(t)
	if code, body := signIn(t, c, r, ann); code != http.StatusOK {
		t.Fatalf("sign-in: %d %s", code, body)
	}
	ctx := context.Background()
	user := r.p.UserID(ann.ID)
	old, _, err := r.tokens.Get(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	old.Expiry = time.Now().Add(-time.Minute)
	if err := r.tokens.Put(ctx, old); err != nil {
		t.Fatal(err)
	}
	fresh, err := r.p.IDToken(ctx, user)
	if err != nil || fresh == "" || fresh == old.IDToken {
		t.Fatalf("IDToken after expiry: same token %v, err %v", fresh == old.IDToken, err)
	}
	kept, _, err := r.tokens.Get(ctx, user)
	if err != nil || kept.IDToken != fresh || time.Until(kept.Expiry) <= 0 {
		t.Errorf("the renewed token is not kept: %v", err)
	}
	if _, err := r.p.IDToken(ctx, r.p.UserID("nobody")); err == nil {
		t.Error("IDToken of a user who never signed in succeeded")
	}
}

func TestPeopleOutsideTheAllowedDomainsAreRefusedWithAReason(t *testing.T) {
	r := startRelay(t, signin.Settings{AllowedDomains: []string{"team.example"}})
	for _, tc := range []struct {
		who  signintest.User
		says string
	}{
		{eve, "email domain other.example"},
		{bob, "has not verified your email"},
	} {
		c := browser(t)
		code, body := signIn(t, c, r, tc.who)
		if code != http.StatusForbidden || !strings.Contains(body, tc.says) || strings.Contains(body, "eyJ") {
			t.Errorf("%s: %d %s; want 403 saying %q and no token", tc.who.Username, code, body, tc.says)
		}
		if code, _ := get(t, c, r.url+"/"); code != http.StatusUnauthorized {
			t.Errorf("%s has a session after refusal", tc.who.Username)
		}
	}
}

func TestAllowedGroupsAdmitOnlyTheirMembers(t *testing.T) {
	r := startRelay(t, signin.Settings{AllowedGroups: []string{"eng"}})
	if code, body := signIn(t, browser(t), r, ann); code != http.StatusOK {
		t.Errorf("ann of eng: %d %s", code, body)
	}
	if code, body := signIn(t, browser(t), r, bob); code != http.StatusForbidden || !strings.Contains(body, "not a member") {
		t.Errorf("bob of sales: %d %s", code, body)
	}
}

func TestACallbackNotStartedInThisBrowserIsRefused(t *testing.T) {
	r := startRelay(t, signin.Settings{})
	// A callback with a state this browser did not start is stale.
	b := browser(t)
	state := "forged"
	code, body := get(t, b, r.url+signin.CallbackPath+"?code=x&state="+state)
	if code != http.StatusBadRequest || !strings.Contains(body, "not started in this browser") {
		t.Errorf("forged callback: %d %s", code, body)
	}
}

func TestSignOutEndsTheSessionAndTheProvidersToo(t *testing.T) {
	r := startRelay(t, signin.Settings{})
	c := browser(t)
	if code, body := signIn(t, c, r, ann); code != http.StatusOK {
		t.Fatalf("sign-in: %d %s", code, body)
	}
	req, _ := http.NewRequest(http.MethodPost, r.url+"/logout", nil)
	req.Header.Set("Origin", r.url)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`url=([^"]+)"`).FindSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil || !strings.HasPrefix(html.UnescapeString(string(m[1])), r.idp.Issuer+"/") {
		t.Fatalf("sign-out page: %d %s; want it to go on to the provider", res.StatusCode, body)
	}
	if _, err := c.Get(html.UnescapeString(string(m[1]))); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, c, r.url+"/"); code != http.StatusUnauthorized {
		t.Error("still signed in after sign-out")
	}
}
