package netguard

import (
	"errors"
	"fmt"
	"net/netip"
)

// BlockedError reports a destination the policy refused and why. Exactly one
// of Addr and Host is set when the refusal concerns an address or a host
// name; neither is set for a refused redirect scheme.
type BlockedError struct {
	Addr   netip.Addr // the refused IP address, if any
	Host   string     // the refused host name, if refused by name
	Reason string     // why, e.g. "private network (RFC 1918)"
}

// Error says what was refused and why.
func (e *BlockedError) Error() string {
	switch {
	case e.Addr.IsValid():
		return fmt.Sprintf("blocked address %s: %s", e.Addr, e.Reason)
	case e.Host != "":
		return fmt.Sprintf("blocked host %q: %s", e.Host, e.Reason)
	default:
		return "blocked: " + e.Reason
	}
}

// IsBlocked reports whether err is, or wraps, a [*BlockedError].
func IsBlocked(err error) bool {
	var be *BlockedError
	return errors.As(err, &be)
}
