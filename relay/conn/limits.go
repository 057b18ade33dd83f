package conn

import "time"

// Caps on what a server can make the relay hold or show; see the package
// documentation.
const (
	maxListItems    = 5000
	maxListBytes    = 8 << 20
	maxListPages    = 1000
	maxURIRunes     = 2048     // resource URIs and URI templates
	maxMessageBytes = 16 << 20 // one HTTP response body or SSE event
)

// Defaults of [Config].
const (
	DefaultHealthInterval = 15 * time.Second
	DefaultRetryMin       = 2 * time.Second
	DefaultRetryMax       = 2 * time.Minute
	DefaultRetryAttempts  = 30 // about an hour of trying at the default delays
	DefaultClientName     = "switchboard"
	DefaultClientVersion  = "0.1.0"
	DefaultCallTimeout    = 5 * time.Minute
)

// Timing of a connection.
const (
	connectTimeout  = 30 * time.Second // the whole handshake
	discoverTimeout = time.Minute      // listing every list once
	minProbeTimeout = 2 * time.Second
	maxProbeTimeout = 10 * time.Second
	// suspectProbeTimeout bounds the probe after a request or stream of the
	// session broke: a server that died refuses at once, and a call in
	// flight must hear of it within 2 s.
	suspectProbeTimeout = 1500 * time.Millisecond
	// coalesceWindow gathers a burst of list_changed notifications into one
	// rediscovery.
	coalesceWindow = 10 * time.Millisecond
	// stableSession is how long a session must have been ready for the end of
	// its notification stream to be taken as routine (a proxy cutting a long
	// request) and answered with an immediate reconnect rather than a failure.
	stableSession = 30 * time.Second
)
