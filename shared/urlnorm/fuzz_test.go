package urlnorm

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzNormalize normalizes any text as a typed server URL: a refusal wraps
// ErrInvalid; a normal form is an http or https URL without credentials or
// fragment, names the host the input named (in lower case), and is its own
// normal form.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"https://Example.COM:443/mcp/", "http://localhost:8080/mcp?x=1#frag", "HTTP://[::1]:80/",
		"https://[fe80::1%25eth0]/x", "https://h/%2F/", "https://user:pw@h/", "https://h:0/", "https://h:65536/",
		"javascript:alert(1)", "localhost:8080/mcp", "https://h/a b", "https://h\\@evil.com/",
		"https://évil.com/", "https://h/%zz", "https://h:80:80/", " https://h/ ", "https:///x", "https://h/?q=a%20b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := Normalize(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Normalize(%q) = %v, not ErrInvalid", raw, err)
			}
			return
		}
		in, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			t.Fatalf("Normalize accepted %q, which does not parse: %v", raw, err)
		}
		out, err := url.Parse(got)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which does not parse: %v", raw, got, err)
		}
		if out.Scheme != "http" && out.Scheme != "https" || out.User != nil || out.Fragment != "" || out.Opaque != "" {
			t.Fatalf("Normalize(%q) = %q", raw, got)
		}
		if want := strings.ToLower(in.Hostname()); out.Hostname() != want || want == "" {
			t.Fatalf("Normalize(%q) = %q: host %q, want %q", raw, got, out.Hostname(), want)
		}
		again, err := Normalize(got)
		if err != nil || again != got {
			t.Fatalf("Normalize(%q) = %q, but Normalize(%q) = %q, %v", raw, got, got, again, err)
		}
	})
}
