package service

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// FuzzHostGuard sends requests for any URL through the Host check: one
// that gets through was sent to a loopback host or to the public one, as
// the URL names its host; a page of another name never does.
func FuzzHostGuard(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:8080/", "http://localhost/", "http://relay.example/", "http://RELAY.example:443/",
		"http://evil.example/", "http://localhost.evil.example/", "http://127.0.0.1.evil.example/", "http://[::1]:8080/",
		"http://app.localhost/", "http://relay.example./", "http://[::ffff:127.0.0.1]/", "http://0x7f000001/",
		"http://localhost%2Eevil.example/",
	} {
		f.Add(s)
	}
	guard := hostGuard([]string{"relay.example"}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = u.Host
		w := httptest.NewRecorder()
		guard.ServeHTTP(w, r)
		if w.Code != http.StatusNoContent {
			if w.Code != http.StatusMisdirectedRequest {
				t.Fatalf("Host %q: status %d", u.Host, w.Code)
			}
			return
		}
		host := strings.ToLower(u.Hostname())
		if !urlnorm.IsLoopback(host) && host != "relay.example" {
			t.Fatalf("Host %q (host name %q) got through", u.Host, host)
		}
	})
}
