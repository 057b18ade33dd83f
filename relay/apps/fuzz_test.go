package apps

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzCheckDomain checks any domain a view declares: an accepted one is
// its own canonical form, a URL origin with the same host and port, made
// only of characters that cannot break out of the Content-Security-Policy
// it is written into, and never covers the relay or the Apps origin.
func FuzzCheckDomain(f *testing.F) {
	for _, s := range []string{
		"https://api.example.com", "wss://*.example.com:8443", "HTTP://[::1]:9000", "https://127.0.0.1:8080",
		"https://x.example; script-src *", "https://x.example 'unsafe-inline'", "https://*.0.0.1:8080", "https://*",
		"https://a.example/path", "https://a.example:", "https://a.example:99999", "javascript://x", "https://[::1",
		"http://localhost:8081", "https://xn--pple-43d.com", "https://a..b",
	} {
		f.Add(s)
	}
	own := []origin{}
	for _, s := range []string{"http://127.0.0.1:8080", "http://localhost:8081"} {
		o, ok := originOf(s)
		if !ok {
			f.Fatalf("own origin %q", s)
		}
		own = append(own, o)
	}
	f.Fuzz(func(t *testing.T, d string) {
		got, err := checkDomain(d, own)
		if err != nil {
			if err != errNotOrigin && err != errOwnOrigin {
				t.Fatalf("checkDomain(%q) = %v", d, err)
			}
			return
		}
		if again, err := checkDomain(got, own); err != nil || again != got {
			t.Fatalf("checkDomain(%q) = %q, then %q, %v", d, got, again, err)
		}
		if i := strings.IndexFunc(got, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(".-:/[]*", r))
		}); i >= 0 {
			t.Fatalf("checkDomain(%q) = %q holds %q", d, got, got[i])
		}
		u, err := url.Parse(strings.Replace(got, "*.", "wildcard.", 1))
		if err != nil || u.Scheme+"://"+u.Host != strings.Replace(got, "*.", "wildcard.", 1) {
			t.Fatalf("checkDomain(%q) = %q, which is not an origin: %v", d, got, err)
		}
		o, _ := parseOrigin(got)
		for _, r := range own {
			if o.covers(r) {
				t.Fatalf("checkDomain(%q) = %q reaches %v", d, got, r)
			}
		}
	})
}
