package authn_test

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestOriginPolicy(t *testing.T) {
	policy, err := authn.NewOriginPolicy([]string{"https://Host.Example", "http://127.0.0.1:5173", "https://[::1]:8443/"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		host    string
		tls     bool
		origins []string // each becomes one Origin header
		want    bool
	}{
		{"own origin", "127.0.0.1:8080", false, []string{"http://127.0.0.1:8080"}, true},
		{"own origin over TLS", "relay.example", true, []string{"https://relay.example"}, true},
		{"own origin with default port spelt out", "relay.example", true, []string{"https://relay.example:443"}, true},
		{"own host but other scheme", "relay.example", true, []string{"http://relay.example"}, false},
		{"own host but other port", "127.0.0.1:8080", false, []string{"http://127.0.0.1:8081"}, false},
		{"allowed origin", "127.0.0.1:8080", false, []string{"https://host.example"}, true},
		{"allowed origin in other case and default port", "127.0.0.1:8080", false, []string{"HTTPS://HOST.EXAMPLE:443"}, true},
		{"allowed origin with port", "127.0.0.1:8080", false, []string{"http://127.0.0.1:5173"}, true},
		{"allowed IPv6 origin", "127.0.0.1:8080", false, []string{"https://[::1]:8443"}, true},
		{"allowed host on another scheme", "127.0.0.1:8080", false, []string{"http://host.example"}, false},
		{"missing Origin", "127.0.0.1:8080", false, nil, false},
		{"evil origin", "127.0.0.1:8080", false, []string{"https://evil.example"}, false},
		{"allowed name as a suffix", "127.0.0.1:8080", false, []string{"https://host.example.evil.example"}, false},
		{"null origin", "127.0.0.1:8080", false, []string{"null"}, false},
		{"two Origin headers", "127.0.0.1:8080", false, []string{"https://host.example", "https://evil.example"}, false},
		{"origin with a path", "127.0.0.1:8080", false, []string{"https://host.example/x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/ws", nil)
			r.Host = tt.host
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			} else {
				r.TLS = nil
			}
			for _, o := range tt.origins {
				r.Header.Add("Origin", o)
			}
			if got := policy.Allowed(r); got != tt.want {
				t.Errorf("Allowed = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOriginPolicyIgnoresForwardedProto(t *testing.T) {
	policy, err := authn.NewOriginPolicy(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/ws", nil)
	r.Host = "relay.example"
	r.Header.Set("X-Forwarded-Proto", "https")
	r.Header.Set("Origin", "https://relay.example")
	if policy.Allowed(r) {
		t.Error("a plain-HTTP request claiming https by X-Forwarded-Proto was allowed as its own origin")
	}
}

func TestNewOriginPolicyRefusesInvalidEntries(t *testing.T) {
	for _, entry := range []string{
		"", "*", "host.example", "ftp://host.example", "https://", "https://host.example/app",
		"https://host.example?x=1", "https://host.example#frag", "https://user@host.example",
		"https://host.example:99999", "https://host.example:0", "null",
	} {
		if _, err := authn.NewOriginPolicy([]string{entry}); err == nil {
			t.Errorf("NewOriginPolicy(%q) accepted", entry)
		}
	}
}
