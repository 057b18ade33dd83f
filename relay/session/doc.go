// Package session owns each user's state: the servers they registered, the
// live state of each connection, and the sequence-numbered deltas that keep
// every open dashboard in step.
//
// A [Manager] holds one [Session] per user. Connections (relay/conn) report
// their complete state in the go-sdk's MCP types; at the session's edge
// (edge.go) it becomes what a dashboard is shown, capped and sanitized by
// relay/mcpwire, and the session diffs it against what it holds and
// broadcasts only what changed, as one [wire.Delta] with the next sequence
// number, to every [Subscriber] (one per open dashboard). Operation results
// and a server's questions for the person (asks.go, sampling.go) cross the
// same edge.
// A subscriber that falls behind is disconnected rather than slowing the
// others; on reconnect it resumes from its last sequence number or gets a
// fresh snapshot.
//
// Ops from a dashboard run in their own goroutines and are answered exactly
// once, to the subscriber that sent them.
package session
