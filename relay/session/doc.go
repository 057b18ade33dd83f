// Package session owns each user's state: the servers they registered,
// each held by its owner, and the sequence-numbered deltas that keep every
// open dashboard in step.
//
// A [Manager] holds one [Session] per user; a session holds one [Server]
// per registered server. The owner of a server holds all of it: its
// registration, its state as the dashboards see it and its lists as the
// server sent them (what agents see), its live connection, its journal,
// the calls made on it and the asks it raised. Removing a server is closing
// its owner; what it held leaves the dashboards in the same delta. The
// session keeps what is the user's own (roots, the agent calls shown, the
// broker that holds the asks while they wait) and sequences the deltas.
//
// Every caller runs an operation on a server through one method of its
// owner ([Server.CallTool], [Server.GetPrompt], [Server.ReadResource]), with
// a [Caller] that says whether a person (a dashboard) or an [Agent] asked:
// the owner alone checks the agent's grant, decides whether a tool runs as
// an MCP task, records the call, attributes the questions its server asks
// during it, and cancels its task when it is cancelled (call.go).
//
// Connections (relay/conn) report their complete state in the go-sdk's MCP
// types; at the session's edge (edge.go) it becomes what a dashboard is
// shown, capped and sanitized by relay/mcpwire, and the owner diffs it
// against what it holds and publishes only what changed, as one
// [wire.Delta] with the next sequence number, to every [Subscriber] (one
// per open dashboard). Operation results and a server's questions for the
// person (asks.go, sampling.go) cross the same edge. A subscriber that
// falls behind is disconnected rather than slowing the others; on
// reconnect it resumes from its last sequence number or gets a fresh
// snapshot.
//
// A dashboard's ops are routed by relay/ops: the manager registers the ops
// of the rooms it holds (servers, calls, asks, roots, logs, resources) on
// [Config.Ops], the rooms outside it register theirs. Each op runs in its
// own goroutine and is answered exactly once, to the subscriber that sent
// it.
package session
