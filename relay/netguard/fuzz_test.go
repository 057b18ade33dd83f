package netguard

import (
	"net/netip"
	"testing"
)

// FuzzCheckAddr judges any address: an allowed one is a global unicast
// address (loopback too when the policy allows it), never private,
// link-local, unspecified or multicast, and an IPv4 address written as
// IPv4-mapped IPv6 is judged as the IPv4 address is.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{
		"8.8.8.8", "127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
		"64:ff9b::a9fe:a9fe", "2002:7f00:1::", "fe80::1%eth0", "fc00::1", "2606:4700::1111", "0.0.0.0", "::",
		"224.0.0.1", "100.64.0.1", "192.0.0.170", "2001::1", "::127.0.0.1",
	} {
		a := netip.MustParseAddr(s)
		f.Add(a.AsSlice(), false)
		f.Add(a.AsSlice(), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, loopback bool) {
		ip, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		p := Policy{AllowLoopback: loopback}
		err := p.CheckAddr(ip)
		if err != nil {
			if !IsBlocked(err) || err.Error() == "" {
				t.Fatalf("CheckAddr(%s) = %v, not a BlockedError", ip, err)
			}
		} else {
			u := ip.Unmap()
			if u.IsUnspecified() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsLinkLocalMulticast() || u.IsMulticast() ||
				u.IsInterfaceLocalMulticast() || u.IsLoopback() && !loopback || !u.IsLoopback() && !u.IsGlobalUnicast() {
				t.Fatalf("CheckAddr(%s) allowed it (loopback allowed: %v)", ip, loopback)
			}
		}
		if ip.Is4() {
			mapped := netip.AddrFrom16(ip.As16())
			if (p.CheckAddr(mapped) == nil) != (err == nil) {
				t.Fatalf("CheckAddr(%s) = %v but CheckAddr(%s) = %v", ip, err, mapped, p.CheckAddr(mapped))
			}
		}
	})
}
