package store

import "time"

// Status is the state of the connection to the relay.
type Status string

// Connection states, in the order a dashboard usually meets them.
const (
	StatusConnecting   Status = "connecting"   // first connection not open yet
	StatusLive         Status = "live"         // socket open, state streaming
	StatusReconnecting Status = "reconnecting" // the socket dropped; trying again
	StatusSignedOut    Status = "signed-out"   // the relay refused the session; no more tries
)

// Socket is an open WebSocket to the relay.
type Socket interface {
	// Send writes one text message.
	Send(text string) error
	// Close closes the socket with a close code and reason.
	Close(code int, reason string)
}

// Handlers receive the events of one socket. Closed is called once, whether
// the socket opened or not.
type Handlers struct {
	Open    func()
	Message func(text string)
	Closed  func(code int)
}

// Dialer opens a socket to url and reports its events to h, never before
// it returned. An error means the socket could not even be created; it
// counts as a drop.
type Dialer func(url string, h Handlers) (Socket, error)

// Close codes the client itself uses or meets.
const (
	// CloseNormal closes a socket the client gives up on (to resync).
	CloseNormal = 1000
	// CloseAbnormal is what a browser reports when a socket failed without a close frame.
	CloseAbnormal = 1006
)

// Reconnection delays: the first retry waits initialBackoff, each failed one
// doubles the wait up to maxBackoff.
const (
	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 5 * time.Second
)

// nextBackoff returns the delay after d.
func nextBackoff(d time.Duration) time.Duration {
	return min(2*d, maxBackoff)
}
