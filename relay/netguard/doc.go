// Package netguard is the SSRF guard every outbound request of the relay goes
// through: MCP traffic, OAuth discovery, client registration and token
// requests.
//
// A [Policy] decides which IP addresses may be reached ([Policy.CheckAddr]).
// It hands out a [net.Dialer] whose Control hook checks the address actually
// being connected to, after DNS resolution, so a name that resolves (or
// rebinds) to a private or metadata address is refused before connect; an
// [http.Transport] built on that dialer that never uses an environment proxy
// and refuses cloud metadata host names before resolving them; and an
// [http.Client] that re-checks every redirect hop (http and https only,
// literal IPs checked before any connection, at most ten redirects).
//
// Refusals are [*BlockedError] values that say why
// ("blocked address 10.0.0.5: private network (RFC 1918)"); [IsBlocked]
// finds one in a wrapped error chain such as the *url.Error of
// [http.Client.Get].
//
// Loopback is refused unless [Policy.AllowLoopback] is set, which suits a
// relay run on one's own machine and not a hosted one. There is
// deliberately no switch for private networks.
package netguard
