// Package ops routes the dashboard's ops to the rooms that answer them, as
// [net/http.ServeMux] routes requests to handlers.
//
// A room (the user's servers, calls, asks and roots in relay/session, agent
// keys in relay/agentkeys, the agent activity log, agent grants in
// relay/agentauth) registers a [Handler] for each op it answers on one
// [Mux]; the session's subscriber hands every op a dashboard sends to
// [Mux.Serve], which knows no room. An op nobody registered is answered
// with [wire.CodeUnknownOp].
//
// Handlers answer with a result to encode as the op's result frame, or an
// error: a [*wire.Error] is shown as it is, anything else as an internal
// error.
package ops
