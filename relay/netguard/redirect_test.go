package netguard

import (
	"net/http"
	"strings"
	"testing"
)

// redirectingServer answers /start with a redirect to location and
// everything else with 200.
func redirectingServer(t *testing.T, location string) *countingServer {
	t.Helper()
	return newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, location, http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
}

func TestRedirectToBlockedAddressRefusedAtTheHop(t *testing.T) {
	dns := newDNSServer(t, map[string]string{"evil.test": "10.0.0.1", "metadata.google.internal": "127.0.0.1"})
	tests := []struct {
		name     string
		location string
		want     string // substring of the error
		dialed   bool   // whether the hop is refused by the dialer rather than before it
	}{
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", "blocked address 169.254.169.254: link-local (cloud metadata)", false},
		{"private", "https://10.0.0.5:8443/token", "blocked address 10.0.0.5: private network (RFC 1918)", false},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/", "cloud metadata) via IPv4-mapped IPv6", false},
		{"unique local", "http://[fd00::1]/", "unique local address", false},
		{"metadata name", "http://metadata.google.internal/computeMetadata/v1/", `blocked host "metadata.google.internal"`, false},
		{"name resolving to private", "http://evil.test/", "blocked address 10.0.0.1: private network", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redirectingServer(t, tt.location)
			c, watch := watchedClient(Policy{AllowLoopback: true, Resolver: dns.resolver()})
			resp, err := c.Get(srv.URL + "/start")
			if err == nil {
				resp.Body.Close()
				t.Fatalf("redirect to %s was followed", tt.location)
			}
			if !IsBlocked(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want a BlockedError containing %q", err, tt.want)
			}
			if got := srv.hits.Load(); got != 1 {
				t.Errorf("server hits = %d, want 1 (the first request only)", got)
			}
			if refused := watch.refused(); (len(refused) > 0) != tt.dialed {
				t.Errorf("dialer refused %v; want refusal at dial time = %v", refused, tt.dialed)
			}
			if atHop := strings.Contains(err.Error(), "redirect hop: "); atHop == tt.dialed {
				t.Errorf("error %q: refused by CheckRedirect = %v, want %v", err, atHop, !tt.dialed)
			}
			watch.assertOnlyLoopbackConnects(t)
		})
	}
}

func TestRedirectToNonHTTPSchemeRefused(t *testing.T) {
	for _, location := range []string{
		"file:///etc/passwd",
		"javascript:alert(1)",
		"ftp://example.com/x",
		"gopher://127.0.0.1:70/",
		"data:text/plain,hi",
	} {
		srv := redirectingServer(t, location)
		c, watch := watchedClient(Policy{AllowLoopback: true})
		resp, err := c.Get(srv.URL + "/start")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("redirect to %s was followed", location)
		}
		scheme, _, _ := strings.Cut(location, ":")
		if !IsBlocked(err) || !strings.Contains(err.Error(), `redirect to scheme "`+scheme+`"`) {
			t.Errorf("redirect to %s: error %q, want a BlockedError naming the scheme", location, err)
		}
		if got := len(watch.snapshot()); got != 1 {
			t.Errorf("redirect to %s: %d dials, want 1 (the first request only)", location, got)
		}
	}
}

func TestRedirectWithinAllowedHostsFollowed(t *testing.T) {
	target := newCountingServer(t, nil)
	srv := redirectingServer(t, "http://localhost:"+target.port()+"/next")
	c, watch := watchedClient(Policy{AllowLoopback: true})
	resp, err := c.Get(srv.URL + "/start")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || target.hits.Load() != 1 {
		t.Errorf("status %d, target hits %d; want 200 and 1", resp.StatusCode, target.hits.Load())
	}
	watch.assertOnlyLoopbackConnects(t)
}

func TestRedirectsStopAfterTen(t *testing.T) {
	srv := redirectingServer(t, "/start")
	c, _ := watchedClient(Policy{AllowLoopback: true})
	resp, err := c.Get(srv.URL + "/start")
	if err == nil {
		resp.Body.Close()
		t.Fatal("endless redirects were followed to the end")
	}
	if IsBlocked(err) || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("error %q, want a plain redirect-limit error", err)
	}
	if got := srv.hits.Load(); got != maxRedirects+1 {
		t.Errorf("server hits = %d, want %d (first request and %d redirects)", got, maxRedirects+1, maxRedirects)
	}
}
