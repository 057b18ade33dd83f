package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// The policies of checkAddrTests: a hosted relay's, and that of a relay run
// on one's own machine.
var (
	strictPolicy   = Policy{}
	loopbackPolicy = Policy{AllowLoopback: true}
)

// checkAddrTests are the cases of TestCheckAddr.
var checkAddrTests = []struct {
	name   string
	policy Policy
	addr   string
	reason string // substring of the reason; empty means allowed
}{
	{"public IPv4", strictPolicy, "93.184.216.34", ""},
	{"public IPv6", strictPolicy, "2606:4700::1", ""},
	{"public IPv4 mapped", strictPolicy, "::ffff:93.184.216.34", ""},
	{"public IPv4 via NAT64", strictPolicy, "64:ff9b::5db8:d822", ""},
	{"public IPv4 via 6to4", strictPolicy, "2002:5db8:d822::1", ""},
	{"just below 172.16/12", strictPolicy, "172.15.255.255", ""},
	{"just above 172.16/12", strictPolicy, "172.32.0.0", ""},
	{"just above CGNAT", strictPolicy, "100.128.0.0", ""},

	{"this network", strictPolicy, "0.1.2.3", `"this network"`},
	{"unspecified IPv4", strictPolicy, "0.0.0.0", "unspecified address"},
	{"unspecified IPv6", strictPolicy, "::", "unspecified address"},
	{"private 10/8", strictPolicy, "10.0.0.5", "private network (RFC 1918)"},
	{"private 172.16/12", strictPolicy, "172.31.255.255", "private network (RFC 1918)"},
	{"private 192.168/16", strictPolicy, "192.168.1.1", "private network (RFC 1918)"},
	{"CGNAT", strictPolicy, "100.64.0.1", "CGNAT"},
	{"Alibaba metadata", strictPolicy, "100.100.100.200", "Alibaba Cloud metadata"},
	{"link-local", strictPolicy, "169.254.1.1", "link-local (RFC 3927)"},
	{"cloud metadata", strictPolicy, "169.254.169.254", "link-local (cloud metadata)"},
	{"loopback off", strictPolicy, "127.0.0.1", "loopback"},
	{"loopback 127/8 off", strictPolicy, "127.8.9.10", "loopback"},
	{"IPv6 loopback off", strictPolicy, "::1", "loopback"},
	{"IETF assignments", strictPolicy, "192.0.0.8", "IETF protocol assignments"},
	{"TEST-NET-1", strictPolicy, "192.0.2.1", "documentation"},
	{"TEST-NET-3", strictPolicy, "203.0.113.7", "documentation"},
	{"benchmarking", strictPolicy, "198.19.0.1", "benchmarking"},
	{"reserved 240/4", strictPolicy, "250.1.2.3", "reserved"},
	{"broadcast", strictPolicy, "255.255.255.255", "limited broadcast"},
	{"IPv4 multicast", strictPolicy, "224.0.0.1", "multicast"},
	{"IPv6 multicast", strictPolicy, "ff02::1", "multicast"},
	{"unique local", strictPolicy, "fd12:3456::1", "unique local address (RFC 4193)"},
	{"AWS IPv6 metadata", strictPolicy, "fd00:ec2::254", "AWS metadata"},
	{"IPv6 link-local", strictPolicy, "fe80::1", "link-local (RFC 4291)"},
	{"IPv6 link-local with zone", strictPolicy, "fe80::1%eth0", "link-local (RFC 4291)"},
	{"site-local", strictPolicy, "fec0::1", "site-local"},
	{"IPv6 documentation", strictPolicy, "2001:db8::1", "documentation"},
	{"discard-only", strictPolicy, "100::1", "discard-only"},
	{"IPv4-compatible", strictPolicy, "::10.0.0.1", "IPv4-compatible"},
	{"local-use NAT64", strictPolicy, "64:ff9b:1::a00:1", "local-use NAT64"},

	{"mapped private", strictPolicy, "::ffff:10.0.0.1", "private network (RFC 1918) via IPv4-mapped IPv6 (10.0.0.1)"},
	{"mapped metadata", strictPolicy, "::ffff:169.254.169.254", "cloud metadata) via IPv4-mapped IPv6"},
	{"mapped CGNAT", strictPolicy, "::ffff:100.64.0.1", "CGNAT"},
	{"mapped unspecified", strictPolicy, "::ffff:0.0.0.0", "unspecified address via IPv4-mapped"},
	{"mapped broadcast", strictPolicy, "::ffff:255.255.255.255", "limited broadcast via IPv4-mapped"},
	{"mapped loopback off", strictPolicy, "::ffff:127.0.0.1", "loopback (AllowLoopback is off) via IPv4-mapped"},
	{"NAT64 private", strictPolicy, "64:ff9b::10.0.0.1", "private network (RFC 1918) via NAT64"},
	{"NAT64 metadata", strictPolicy, "64:ff9b::a9fe:a9fe", "cloud metadata) via NAT64"},
	{"6to4 private", strictPolicy, "2002:c0a8:0101::1", "private network (RFC 1918) via 6to4"},
	{"6to4 metadata", strictPolicy, "2002:a9fe:a9fe::", "cloud metadata) via 6to4"},

	{"loopback on", loopbackPolicy, "127.0.0.1", ""},
	{"loopback 127/8 on", loopbackPolicy, "127.8.9.10", ""},
	{"IPv6 loopback on", loopbackPolicy, "::1", ""},
	{"mapped loopback on", loopbackPolicy, "::ffff:127.0.0.1", ""},
	{"NAT64 loopback stays blocked", loopbackPolicy, "64:ff9b::7f00:1", "loopback (AllowLoopback is off) via NAT64"},
	{"6to4 loopback stays blocked", loopbackPolicy, "2002:7f00:1::", "loopback (AllowLoopback is off) via 6to4"},
	{"private stays blocked with loopback on", loopbackPolicy, "10.0.0.1", "private network"},
	{"metadata stays blocked with loopback on", loopbackPolicy, "169.254.169.254", "cloud metadata"},

	{"extra allowed CIDR", Policy{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, "10.1.2.3", ""},
	{"extra allowed CIDR mapped", Policy{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, "::ffff:10.1.2.3", ""},
	{"outside extra allowed CIDR", Policy{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, "10.2.0.1", "private network"},
}

func TestCheckAddr(t *testing.T) {
	for _, tt := range checkAddrTests {
		t.Run(tt.name, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.addr)
			err := tt.policy.CheckAddr(ip)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("CheckAddr(%s) = %v, want allowed", ip, err)
				}
				return
			}
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("CheckAddr(%s) = %v, want a *BlockedError", ip, err)
			}
			if be.Addr != ip {
				t.Errorf("BlockedError.Addr = %s, want %s", be.Addr, ip)
			}
			if !strings.Contains(be.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", be.Reason, tt.reason)
			}
		})
	}
}

func TestCheckAddrRefusesTheZeroAddr(t *testing.T) {
	err := Policy{AllowLoopback: true}.CheckAddr(netip.Addr{})
	if !IsBlocked(err) {
		t.Fatalf("CheckAddr(zero Addr) = %v, want blocked", err)
	}
}

func TestBlockedErrorSaysWhatAndWhy(t *testing.T) {
	tests := []struct {
		err  *BlockedError
		want string
	}{
		{&BlockedError{Addr: netip.MustParseAddr("10.0.0.5"), Reason: reasonPrivate}, "blocked address 10.0.0.5: private network (RFC 1918)"},
		{&BlockedError{Host: "metadata.google.internal", Reason: reasonMetadataName}, `blocked host "metadata.google.internal": cloud metadata host name`},
		{&BlockedError{Reason: "redirect without a host"}, "blocked: redirect without a host"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if got, want := (Policy{}).CheckAddr(netip.MustParseAddr("169.254.169.254")).Error(), "blocked address 169.254.169.254: link-local (cloud metadata)"; got != want {
		t.Errorf("metadata address: Error() = %q, want %q", got, want)
	}
}

func TestIsBlockedSeesThroughWrapping(t *testing.T) {
	inner := Policy{}.CheckAddr(netip.MustParseAddr("10.0.0.1"))
	if !IsBlocked(fmt.Errorf("dial tcp: %w", inner)) {
		t.Error("IsBlocked(wrapped BlockedError) = false")
	}
	if IsBlocked(errors.New("connection refused")) {
		t.Error("IsBlocked(other error) = true")
	}
	if IsBlocked(nil) {
		t.Error("IsBlocked(nil) = true")
	}
}

func TestMetadataHostNamesRefusedInAnySpelling(t *testing.T) {
	tests := []struct {
		host    string
		blocked bool
	}{
		{"metadata.google.internal", true},
		{"METADATA.Google.Internal.", true},
		{"metadata", true},
		{"instance-data", true},
		{"instance-data.ec2.internal", true},
		{"example.com", false},
		{"metadata.example.com", false},
	}
	for _, tt := range tests {
		err := checkHostName(tt.host)
		if got := IsBlocked(err); got != tt.blocked {
			t.Errorf("checkHostName(%q) = %v, want blocked=%v", tt.host, err, tt.blocked)
		}
	}
}
