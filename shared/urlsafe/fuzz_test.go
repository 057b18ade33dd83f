package urlsafe

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// FuzzCheckOpenable judges any text as a URL to open: a refusal wraps
// ErrNotOpenable; a URL judged openable is http or https, without
// credentials, http only to loopback, and the host it reports is the one a
// re-parse of the URL, and of its re-encoding, finds.
func FuzzCheckOpenable(f *testing.F) {
	for _, s := range []string{
		"https://auth.example.com/authorize?client_id=x&state=y", "HTTPS://Auth.Example.COM:8443/a",
		"http://127.0.0.1:9000/authorize", "http://app.localhost:8080/x", "http://[::1]:8080/x",
		"http://example.com/authorize", "javascript:alert(1)", "https://a@b.com/", "https:/\\evil.com",
		"https://evil.com\u202e/x", "https://xn--pple-43d.com/", "https://аpple.com/", "http://localhost.:1/",
		"http://127.1/", "http://0x7f.0.0.1/", "https://%65vil.com/", "https://[::ffff:127.0.0.1]/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		host, err := CheckOpenable(raw)
		if err != nil {
			if !errors.Is(err, ErrNotOpenable) {
				t.Fatalf("CheckOpenable(%q) = %v, not ErrNotOpenable", raw, err)
			}
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("CheckOpenable accepted %q, which does not parse: %v", raw, err)
		}
		scheme := strings.ToLower(u.Scheme)
		if scheme != "https" && !(scheme == "http" && urlnorm.IsLoopback(host)) || u.User != nil {
			t.Fatalf("CheckOpenable accepted %q", raw)
		}
		if host == "" || host != strings.ToLower(u.Hostname()) {
			t.Fatalf("CheckOpenable(%q) = %q, the URL's host is %q", raw, host, u.Hostname())
		}
		again, err := CheckOpenable(u.String())
		if err != nil || again != host {
			t.Fatalf("CheckOpenable(%q) = %q, but re-encoded as %q: %q, %v", raw, host, u.String(), again, err)
		}
	})
}

// FuzzHostForms spells any host both ways and warns about it: an
// international label encodes to punycode that decodes back to it, the
// ASCII form is ASCII whenever every label could be converted, and
// HostWarnings answers.
func FuzzHostForms(f *testing.F) {
	for _, s := range []string{"example.com", "аpple.com", "xn--pple-43d.com", "münchen.de", "xn--zz.com", "XN--MNCHEN-3YA.DE", "a..b.", "中文网.中国", "xn--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		ascii, readable := HostForms(host)
		_ = HostWarnings(host)
		lower := strings.ToLower(host)
		if strings.Count(ascii, ".") != strings.Count(lower, ".") {
			t.Fatalf("HostForms(%q) = %q, %q: labels lost", host, ascii, readable)
		}
		for _, label := range strings.Split(lower, ".") {
			if isASCII(label) || !utf8.ValidString(label) {
				continue
			}
			enc, err := encodePunycode(label)
			if err != nil {
				continue
			}
			if !isASCII(enc) {
				t.Fatalf("encodePunycode(%q) = %q is not ASCII", label, enc)
			}
			if dec, err := decodePunycode(enc); err != nil || dec != label {
				t.Fatalf("decodePunycode(encodePunycode(%q) = %q) = %q, %v", label, enc, dec, err)
			}
		}
	})
}
