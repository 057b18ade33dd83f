package netguard

import (
	"fmt"
	"net"
	"net/netip"
)

// Policy says which destinations outbound requests may reach. The zero
// Policy allows only public unicast addresses.
type Policy struct {
	// AllowLoopback permits 127.0.0.0/8 and ::1 (and ::ffff:127.0.0.0/104):
	// on for a relay run on one's own machine, off for a hosted relay.
	AllowLoopback bool
	// AllowCIDRs are extra prefixes allowed even though a rule would block
	// them; meant for tests, not for production configuration.
	AllowCIDRs []netip.Prefix
	// Resolver, if set, resolves host names for the dialer (nil means the
	// default resolver). Whatever it answers is still checked at dial time.
	Resolver *net.Resolver
}

// CheckAddr returns nil if ip may be connected to and otherwise a
// [*BlockedError] that says why.
func (p Policy) CheckAddr(ip netip.Addr) error {
	if reason, ok := p.blockReason(ip.WithZone("")); ok {
		return &BlockedError{Addr: ip, Reason: reason}
	}
	return nil
}

// blockReason returns why ip is refused, or false if it is allowed.
func (p Policy) blockReason(ip netip.Addr) (string, bool) {
	if !ip.IsValid() {
		return reasonInvalid, true
	}
	if p.allowed(ip) {
		return "", false
	}
	if ip.Is6() {
		for _, r := range embeddingV6 {
			if r.prefix.Contains(ip) {
				return p.embeddedReason(r, ip)
			}
		}
	}
	switch {
	case ip.IsUnspecified():
		return reasonUnspecified, true
	case ip.IsLoopback():
		return reasonLoopback, !p.AllowLoopback
	case ip.IsMulticast():
		return reasonMulticast, true
	}
	if ip.Is4() {
		return lookup(blockedV4, ip)
	}
	return lookup(blockedV6, ip)
}

// embeddedReason checks the IPv4 address that ip, inside r, carries.
func (p Policy) embeddedReason(r embeddingRange, ip netip.Addr) (string, bool) {
	v4 := r.embedded(ip)
	inner := p
	if !r.sameHost {
		inner.AllowLoopback = false
	}
	reason, blocked := inner.blockReason(v4)
	if !blocked {
		return "", false
	}
	return fmt.Sprintf("%s via %s (%s)", reason, r.name, v4), true
}

// allowed reports whether ip is in one of the extra allowed prefixes.
func (p Policy) allowed(ip netip.Addr) bool {
	for _, pfx := range p.AllowCIDRs {
		if pfx.Contains(ip) {
			return true
		}
	}
	return false
}
