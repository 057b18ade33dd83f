package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Dialer defaults.
const (
	dialTimeout   = 30 * time.Second
	dialKeepAlive = 30 * time.Second
)

// Dialer returns a dialer whose Control hook checks every address it is
// about to connect to, after DNS resolution and before connect, so a name
// resolving (or rebinding) to a blocked address is refused.
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{
		Timeout:   dialTimeout,
		KeepAlive: dialKeepAlive,
		Resolver:  p.Resolver,
		Control:   p.control,
	}
}

// control is the dialer's hook: address is the resolved "ip:port" about to
// be connected to. Anything that is not an IP address is refused.
func (p Policy) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: fmt.Sprintf("%s destination %q is not an IP address and port", network, address)}
	}
	return p.CheckAddr(ap.Addr())
}

// dialFunc is the signature of [net.Dialer.DialContext].
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// guardNames wraps dial so that metadata host names and blocked literal
// addresses are refused before any resolution or socket.
func (p Policy) guardNames(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := p.checkHost(hostOf(addr)); err != nil {
			return nil, fmt.Errorf("dial %s %s: %w", network, addr, err)
		}
		return dial(ctx, network, addr)
	}
}

// checkHost checks a host (a name or an IP literal, without port): literal
// addresses against the policy, names against the metadata names. Other
// names are checked once resolved, at dial time.
func (p Policy) checkHost(host string) error {
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(ip)
	}
	return checkHostName(host)
}

// hostOf returns the host part of a "host:port" address, or addr itself if
// it has no port.
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}
