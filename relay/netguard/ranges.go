package netguard

import "net/netip"

// blockedRange is a prefix the policy refuses, with the reason given.
type blockedRange struct {
	prefix netip.Prefix
	reason string
}

// Reasons shared by several ranges or checked outside the tables.
const (
	reasonPrivate       = "private network (RFC 1918)"
	reasonDocumentation = "documentation range (RFC 5737, RFC 3849, RFC 9637)"
	reasonUnspecified   = "unspecified address"
	reasonLoopback      = "loopback (AllowLoopback is off)"
	reasonMulticast     = "multicast"
	reasonInvalid       = "not a valid IP address"
)

// blockedV4 lists the refused IPv4 ranges, most specific first: the first
// match gives the reason. Loopback, unspecified and multicast are checked
// separately.
var blockedV4 = []blockedRange{
	{netip.MustParsePrefix("169.254.169.254/32"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("100.100.100.200/32"), "shared address space (Alibaba Cloud metadata)"},
	{netip.MustParsePrefix("255.255.255.255/32"), "limited broadcast"},
	{netip.MustParsePrefix("0.0.0.0/8"), `"this network" (RFC 1122)`},
	{netip.MustParsePrefix("10.0.0.0/8"), reasonPrivate},
	{netip.MustParsePrefix("172.16.0.0/12"), reasonPrivate},
	{netip.MustParsePrefix("192.168.0.0/16"), reasonPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT, RFC 6598)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (RFC 3927)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments (RFC 6890)"},
	{netip.MustParsePrefix("192.0.2.0/24"), reasonDocumentation},
	{netip.MustParsePrefix("198.51.100.0/24"), reasonDocumentation},
	{netip.MustParsePrefix("203.0.113.0/24"), reasonDocumentation},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking (RFC 2544)"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (RFC 1112)"},
}

// blockedV6 lists the refused IPv6 ranges, most specific first. Prefixes that
// embed an IPv4 address are in embeddingV6; loopback, unspecified and
// multicast are checked separately.
var blockedV6 = []blockedRange{
	{netip.MustParsePrefix("fd00:ec2::254/128"), "unique local address (AWS metadata)"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible IPv6 (deprecated, RFC 4291)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64 (RFC 8215)"},
	{netip.MustParsePrefix("100::/64"), "discard-only (RFC 6666)"},
	{netip.MustParsePrefix("2001:db8::/32"), reasonDocumentation},
	{netip.MustParsePrefix("3fff::/20"), reasonDocumentation},
	{netip.MustParsePrefix("fc00::/7"), "unique local address (RFC 4193)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local (RFC 4291)"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated, RFC 3879)"},
}

// embeddingRange is an IPv6 prefix whose addresses carry an IPv4 address
// that traffic is ultimately delivered to.
type embeddingRange struct {
	prefix netip.Prefix
	name   string // how the embedding is named in reasons
	offset int    // byte offset of the IPv4 address within the IPv6 address
	// sameHost is true when the kernel delivers to the embedded address
	// itself (IPv4-mapped), so loopback is as allowed as plain 127/8; for
	// translators and relays it means their loopback, never ours.
	sameHost bool
}

// IPv4 byte offsets of the embeddings.
const (
	offsetLast32 = 12 // ::ffff:a.b.c.d and 64:ff9b::a.b.c.d (RFC 6052 /96)
	offset6to4   = 2  // 2002:AABB:CCDD:: (RFC 3056)
)

// embeddingV6 lists the IPv6 prefixes checked by their embedded IPv4 address.
var embeddingV6 = []embeddingRange{
	{netip.MustParsePrefix("::ffff:0:0/96"), "IPv4-mapped IPv6", offsetLast32, true},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 (RFC 6052)", offsetLast32, false},
	{netip.MustParsePrefix("2002::/16"), "6to4 (RFC 3056)", offset6to4, false},
}

// embedded returns the IPv4 address carried at r.offset of ip.
func (r embeddingRange) embedded(ip netip.Addr) netip.Addr {
	b := ip.As16()
	return netip.AddrFrom4([4]byte(b[r.offset : r.offset+4]))
}

// lookup returns the reason of the first range containing ip, if any.
func lookup(ranges []blockedRange, ip netip.Addr) (string, bool) {
	for _, r := range ranges {
		if r.prefix.Contains(ip) {
			return r.reason, true
		}
	}
	return "", false
}
