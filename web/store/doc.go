// Package store is the dashboard's mirror of what the relay said.
//
// A [Client] keeps one WebSocket to the relay open: it sends the hello,
// applies the snapshot and the deltas that follow (checking that each delta
// carries the next sequence number, and resyncing when one does not),
// reconnects by itself with a growing delay when the socket drops, and sends
// ops, matching every answer to its op by id. The views read an immutable
// [View] of that state and re-render when Config.OnChange fires.
//
// Beside the relay's state the client keeps what this dashboard did: its
// calls, its answers to asks (and a [Departed] notice for each ask that
// left while shown without this dashboard's answer), and the OAuth
// authorizations it started, whose URLs it checks before a [Popup] opens them.
//
// The package is plain Go: the browser's WebSocket comes in through a
// [Dialer], so the logic runs and is tested on the host.
package store
