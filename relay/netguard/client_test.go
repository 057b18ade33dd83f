package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestClientReachesLoopbackServerWhenAllowed(t *testing.T) {
	srv := newCountingServer(t, nil)
	c, watch := watchedClient(Policy{AllowLoopback: true})
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "ok" {
		t.Fatalf("body = %q, %v; want ok", body, err)
	}
	if got := srv.hits.Load(); got != 1 {
		t.Errorf("server hits = %d, want 1", got)
	}
	watch.assertOnlyLoopbackConnects(t)
}

func TestClientRefusesLoopbackServerWhenNotAllowed(t *testing.T) {
	srv := newCountingServer(t, nil)
	c, watch := watchedClient(Policy{})
	resp, err := c.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("Get succeeded, want blocked")
	}
	if !IsBlocked(err) {
		t.Fatalf("IsBlocked(%v) = false", err)
	}
	if !strings.Contains(err.Error(), "blocked address 127.0.0.1: loopback") {
		t.Errorf("error %q does not say why", err)
	}
	if got := srv.hits.Load(); got != 0 {
		t.Errorf("server hits = %d, want 0", got)
	}
	if got := watch.snapshot(); len(got) != 0 {
		t.Errorf("literal loopback address reached the dialer: %v", got)
	}
}

// TestLocalhostNameBlockedAtDialTime shows that names are judged by what
// they resolve to: "localhost" is not a blocked name, its address is.
func TestLocalhostNameBlockedAtDialTime(t *testing.T) {
	srv := newCountingServer(t, nil)
	url := "http://localhost:" + srv.port() + "/"

	c, watch := watchedClient(Policy{})
	resp, err := c.Get(url)
	if err == nil {
		resp.Body.Close()
		t.Fatal("Get localhost succeeded with loopback off")
	}
	if be := blockedError(t, err); !strings.Contains(be.Reason, "loopback") || !be.Addr.Unmap().IsLoopback() {
		t.Errorf("blocked %s for %q, want a loopback address for loopback", be.Addr, be.Reason)
	}
	if len(watch.refused()) == 0 {
		t.Error("the refusal did not come from the dial-time check")
	}
	if got := srv.hits.Load(); got != 0 {
		t.Errorf("server hits = %d, want 0", got)
	}

	c, _ = watchedClient(Policy{AllowLoopback: true})
	resp, err = c.Get(url)
	if err != nil {
		t.Fatalf("Get localhost with loopback on: %v", err)
	}
	resp.Body.Close()
	if got := srv.hits.Load(); got != 1 {
		t.Errorf("server hits = %d, want 1", got)
	}
}

// TestResolverAnswerIsCheckedAtDial uses a DNS server on 127.0.0.1 that
// resolves evil.test to a private address and good.test to loopback.
func TestResolverAnswerIsCheckedAtDial(t *testing.T) {
	dns := newDNSServer(t, map[string]string{"evil.test": "10.0.0.1", "good.test": "127.0.0.1"})
	srv := newCountingServer(t, nil)
	c, watch := watchedClient(Policy{AllowLoopback: true, Resolver: dns.resolver()})

	resp, err := c.Get("http://evil.test:" + srv.port() + "/")
	if err == nil {
		resp.Body.Close()
		t.Fatal("Get evil.test succeeded")
	}
	be := blockedError(t, err)
	if be.Addr.String() != "10.0.0.1" || be.Reason != reasonPrivate {
		t.Errorf("blocked %s for %q, want 10.0.0.1 for %q", be.Addr, be.Reason, reasonPrivate)
	}
	if want := "10.0.0.1:" + srv.port(); !slices.Contains(watch.refused(), want) {
		t.Errorf("dialer refused %v, want %s among them", watch.refused(), want)
	}

	resp, err = c.Get("http://good.test:" + srv.port() + "/")
	if err != nil {
		t.Fatalf("Get good.test: %v", err)
	}
	resp.Body.Close()
	if got := srv.hits.Load(); got != 1 {
		t.Errorf("server hits = %d, want 1 (good.test only)", got)
	}
	if dns.queries.Load() == 0 {
		t.Error("the policy's resolver was not used")
	}
	watch.assertOnlyLoopbackConnects(t)
}

func TestMetadataHostNameRefusedBeforeResolution(t *testing.T) {
	dns := newDNSServer(t, map[string]string{"metadata.google.internal": "127.0.0.1"})
	for _, url := range []string{
		"http://metadata.google.internal/computeMetadata/v1/",
		"http://METADATA.google.internal.:80/",
		"http://instance-data/latest/meta-data/",
	} {
		c, watch := watchedClient(Policy{AllowLoopback: true, Resolver: dns.resolver()})
		resp, err := c.Get(url)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("Get %s succeeded", url)
		}
		if be := blockedError(t, err); be.Host == "" || be.Reason != reasonMetadataName {
			t.Errorf("Get %s: blocked %+v, want the host name refused as %q", url, be, reasonMetadataName)
		}
		if got := watch.snapshot(); len(got) != 0 {
			t.Errorf("Get %s reached the dialer: %v", url, got)
		}
	}
	if got := dns.queries.Load(); got != 0 {
		t.Errorf("DNS queries = %d, want 0", got)
	}
}

// TestDialerRefusesBlockedAddressBeforeConnect dials blocked addresses with
// the bare dialer: the Control hook, which runs before connect, refuses them.
func TestDialerRefusesBlockedAddressBeforeConnect(t *testing.T) {
	tests := []struct{ address, reason string }{
		{"10.0.0.1:80", reasonPrivate},
		{"169.254.169.254:80", "link-local (cloud metadata)"},
		{"100.64.0.1:443", "CGNAT"},
		{"127.0.0.1:9", "loopback"},
	}
	for _, tt := range tests {
		d := Policy{}.Dialer()
		watch := watchDialer(d)
		conn, err := d.DialContext(context.Background(), "tcp", tt.address)
		if err == nil {
			conn.Close()
			t.Fatalf("dial %s succeeded", tt.address)
		}
		if be := blockedError(t, err); !strings.Contains(be.Reason, tt.reason) {
			t.Errorf("dial %s: reason %q, want %q", tt.address, be.Reason, tt.reason)
		}
		if got := watch.refused(); !slices.Equal(got, []string{tt.address}) {
			t.Errorf("dial %s: Control refused %v, want exactly that address", tt.address, got)
		}
		watch.assertOnlyLoopbackConnects(t)
		var opErr *net.OpError
		if !errors.As(err, &opErr) || opErr.Op != "dial" {
			t.Errorf("dial %s: error %v is not a dial OpError", tt.address, err)
		}
	}
}

func TestTransportNeverUsesAProxy(t *testing.T) {
	tr := Policy{}.Transport()
	if tr.Proxy != nil {
		t.Error("Transport.Proxy is set; an environment proxy would bypass the check")
	}
	if !tr.ForceAttemptHTTP2 {
		t.Error("Transport does not attempt HTTP/2")
	}
	if c := (Policy{}).Client(0); c.Transport.(*http.Transport).Proxy != nil {
		t.Error("Client's transport uses a proxy")
	}
}
