// Package activity is the log of agents' calls: every call an agent makes
// through the agent endpoint (its agent, key, server, tool, start,
// duration, outcome, and whether a person was asked; never arguments,
// results or answers), kept in the store (the latest store.MaxAgentCalls
// per user) and listed by the dashboard's op [wire.OpListActivity].
//
// The calls' owner (relay/session) hands each ended call to [Log.Append],
// which never blocks the call: ended calls are written in the background,
// in batches (writer.go), and each is then shown as kept. A listing waits
// for the calls that ended before it; [Log.Flush] before the store closes.
package activity
