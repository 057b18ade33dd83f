package agentauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// FuzzRegister posts any body to client registration: it registers a
// client whose every redirect URI passes the check, or answers 400 with an
// OAuth error; never a server error.
func FuzzRegister(f *testing.F) {
	for _, s := range []string{
		registration1, `{"redirect_uris":[]}`, `{"redirect_uris":["http://app.example/cb"]}`,
		`{"redirect_uris":["https://app.example/cb#frag"]}`, `{"redirect_uris":["com.example.app:/cb"],"client_name":"\u202eevil"}`,
		`{"redirect_uris":["javascript://x.y/%0aalert(1)"]}`, `{"redirect_uris":["https://a/cb"],"grant_types":["client_credentials"]}`,
		`{"redirect_uris":["http://[::1]:1/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, `not json`, `null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		s := newTestServer(t, true, false)
		rec := postRegister(s, "10.0.0.1", body)
		switch rec.Code {
		case http.StatusCreated:
			var reg struct {
				ClientID     string   `json:"client_id"`
				RedirectURIs []string `json:"redirect_uris"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &reg); err != nil || reg.ClientID == "" || len(reg.RedirectURIs) == 0 {
				t.Fatalf("%q registered as %s", body, rec.Body)
			}
			for _, u := range reg.RedirectURIs {
				if err := checkRedirectURI(u); err != nil {
					t.Fatalf("%q registered a redirect URI that fails its check: %v", body, err)
				}
			}
		case http.StatusBadRequest:
			var e oauthError
			if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Code == "" {
				t.Fatalf("%q refused without an OAuth error: %s", body, rec.Body)
			}
		default:
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
	})
}

// FuzzAuthorize sends any authorization request for a registered client:
// the browser is sent only to the client's registered redirect URI or to
// the relay itself, and never gets a server error.
func FuzzAuthorize(f *testing.F) {
	for _, s := range []string{
		"response_type=code&client_id=CLIENT&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_challenge=abc&code_challenge_method=S256&state=s&resource=http%3A%2F%2F127.0.0.1%3A8080%2Fmcp",
		"response_type=token&client_id=CLIENT&state=s", "client_id=CLIENT&redirect_uri=https%3A%2F%2Fevil.example%2Fcb",
		"client_id=CLIENT&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%2F..%2F..%2Fevil", "client_id=https%3A%2F%2F127.0.0.1%2Fdoc",
		"client_id=CLIENT&scope=mcp%3Aserver%3Aa%20mcp%3Aall&code_challenge_method=plain", "", "client_id=CLIENT&client_id=other",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		s := newTestServer(t, true, false)
		c, err := s.cfg.Store.PutAgentClient(context.Background(), store.AgentClient{Name: "A", RedirectURIs: []string{"https://app.example/cb"}, Expires: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+AuthorizePath, nil)
		req.URL.RawQuery = strings.ReplaceAll(query, "CLIENT", url.QueryEscape(c.ID))
		req.RemoteAddr = "10.0.0.1:5555"
		rec := httptest.NewRecorder()
		s.serveAuthorize(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%q: %d %s", query, rec.Code, rec.Body)
		}
		loc := rec.Header().Get("Location")
		if loc == "" {
			return
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("%q: sent to %q", query, loc)
		}
		toClient := u.Scheme == "https" && u.Host == "app.example" && u.Path == "/cb"
		toRelay := u.Host == "" && strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") || u.Host == "127.0.0.1:8080"
		if !toClient && !toRelay {
			t.Fatalf("%q: sent to %q", query, loc)
		}
	})
}

// FuzzToken posts any form to the token endpoint, where no code was
// issued: it never hands out a token, and refuses with an OAuth error,
// never a server error.
func FuzzToken(f *testing.F) {
	for _, s := range []string{
		"grant_type=authorization_code&code=x&code_verifier=y&client_id=z&redirect_uri=https%3A%2F%2Fapp.example%2Fcb",
		"grant_type=refresh_token&refresh_token=r&client_id=z", "grant_type=client_credentials", "grant_type=password&username=a&password=b",
		"", "code=%zz", "grant_type=authorization_code&grant_type=refresh_token",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, form string) {
		s := newTestServer(t, true, false)
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080"+TokenPath, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		s.serveToken(rec, req)
		var out map[string]any
		json.Unmarshal(rec.Body.Bytes(), &out)
		if rec.Code < 400 || rec.Code >= 500 || out["access_token"] != nil || out["error"] == nil {
			t.Fatalf("%q: %d %s", form, rec.Code, rec.Body)
		}
	})
}

// FuzzClientDocument reads any client ID metadata document: a client it
// accepts has the document's id, 1 to maxRedirectURIs redirect URIs that
// each pass the check, and a one-line name within its limit; and the
// client sends a browser only to a registered redirect URI, or to a
// loopback one on another port.
func FuzzClientDocument(f *testing.F) {
	const id = "https://agent.example/client.json"
	for _, s := range [][2]string{
		{`{"client_id":"` + id + `","client_name":"Example Agent","redirect_uris":["https://agent.example/cb"]}`, "https://agent.example/cb"},
		{`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"]}`, "http://127.0.0.1:9999/cb"},
		{`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"]}`, "http://127.0.0.1:9999/other"},
		{`{"client_id":"` + id + `","client_name":"a\nb\u202e","redirect_uris":["com.example:/cb","https://x/"]}`, ""},
		{`{"client_id":"https://other.example/c","redirect_uris":["https://agent.example/cb"]}`, ""},
		{`{"client_id":"` + id + `","redirect_uris":["https://a/"],"token_endpoint_auth_method":"private_key_jwt"}`, ""},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	u, _ := url.Parse(id)
	f.Fuzz(func(t *testing.T, body []byte, redirect string) {
		var doc document
		if json.Unmarshal(body, &doc) != nil {
			return
		}
		c, err := fromDocument(id, u, doc)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q refused without a reason", body)
			}
			return
		}
		if c.ID != id || !c.Document || c.Host != "agent.example" || c.Name == "" || len([]rune(c.Name)) > maxClientName || strings.ContainsAny(c.Name, "\r\n") {
			t.Fatalf("%q read as %+v", body, c)
		}
		if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > maxRedirectURIs {
			t.Fatalf("%q read with %d redirect URIs", body, len(c.RedirectURIs))
		}
		for _, r := range c.RedirectURIs {
			if err := checkRedirectURI(r); err != nil {
				t.Fatalf("%q read with a redirect URI that fails its check: %v", body, err)
			}
		}
		got, ok := c.matchRedirect(redirect)
		if !ok {
			return
		}
		if got == redirect && redirect != "" && !slices.Contains(c.RedirectURIs, got) {
			g, err := url.Parse(got)
			samePath := slices.ContainsFunc(c.RedirectURIs, func(r string) bool {
				w, err := url.Parse(r)
				return err == nil && w.Scheme == "http" && urlnorm.IsLoopback(w.Hostname()) && w.Hostname() == g.Hostname() && w.Path == g.Path
			})
			if err != nil || g.Scheme != "http" || !urlnorm.IsLoopback(g.Hostname()) || !samePath {
				t.Fatalf("redirect %q accepted for %q", redirect, c.RedirectURIs)
			}
		}
		if got != redirect && !(redirect == "" && len(c.RedirectURIs) == 1 && got == c.RedirectURIs[0]) {
			t.Fatalf("redirect %q matched as %q", redirect, got)
		}
	})
}
