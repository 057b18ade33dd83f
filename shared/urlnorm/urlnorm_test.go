package urlnorm

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeSameServerTypedTwoWays(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"HTTP://Example.COM/mcp/", "http://example.com/mcp"},
		{"https://example.com:443/mcp", "https://example.com/mcp"},
		{"http://example.com:80/", "http://example.com"},
		{"http://example.com", "http://example.com"},
		{"  https://example.com/a/b//  ", "https://example.com/a/b"},
		{"https://example.com/mcp?x=1#frag", "https://example.com/mcp?x=1"},
		{"http://[::1]:9000/mcp", "http://[::1]:9000/mcp"},
		{"http://[::1]/mcp", "http://[::1]/mcp"},
		{"https://example.com:8443/Path", "https://example.com:8443/Path"},
	}
	for _, c := range cases {
		got, err := Normalize(c.in)
		if err != nil {
			t.Errorf("Normalize(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizeRefusesBadURLs(t *testing.T) {
	cases := map[string]string{
		"":                           "empty",
		"example.com/mcp":            "missing scheme",
		"ftp://example.com":          `scheme "ftp"`,
		"javascript:alert(1)":        `scheme "javascript"`,
		"file:///etc/passwd":         `scheme "file"`,
		"http://":                    "missing host",
		"http://user:pw@example.com": "credentials",
		"http://exa mple.com":        "invalid",
		"https://" + strings.Repeat("a", MaxLength): "longer than",
		"http://127.0.0.1:8192/ mcp":                "spaces",
		"127.0.0.1:8192/mcp":                        "missing scheme",
		"localhost:8080/mcp":                        "missing scheme",
		"http://127.0.0.1:70000/mcp":                "port",
		"http://127.0.0.1:0/mcp":                    "out of range",
		"http://127.0.0.1:abc/mcp":                  "port must be a number",
	}
	for in, want := range cases {
		_, err := Normalize(in)
		if err == nil {
			t.Errorf("Normalize(%q) succeeded, want error containing %q", in, want)
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Normalize(%q) = %v, want ErrInvalid containing %q", in, err, want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "a.localhost": true, "127.0.0.1": true,
		"127.9.9.9": true, "::1": true, "[::1]": true,
		"example.com": false, "10.0.0.1": false, "localhost.example.com": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
