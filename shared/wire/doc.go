// Package wire is the protocol between the relay and the dashboard.
//
// Every WebSocket message is one JSON text [Frame]. After the socket is
// authenticated the dashboard sends a [TypeHello] frame naming the last
// epoch and sequence number it applied; the relay answers with either the
// missing [TypeDelta] frames or a fresh [TypeSnapshot], then streams deltas,
// each with the next sequence number.
//
// A person's action is a [TypeOp] frame with an id. The relay answers every
// op exactly once, with a [TypeResult] or a [TypeError] frame carrying the
// same id. Long ops may stream [TypeProgress] frames under that id first and
// can be cancelled with the [OpCancel] op.
//
// The package is plain data: no I/O, no MCP library types. MCP objects the
// dashboard shows travel as their own JSON ([Tool], [Prompt], ...).
//
// Protocol values have their own types, each kind in one file: [OpName]
// (ops.go), [ChangeKind] (changes.go), [FrameType] and [CloseCode]
// (frame.go), [Code] (errors.go), [ContentType] (content.go), [Role]
// (roles.go), [Transport] (transport.go), [LogLevel] (loglevels.go),
// [TaskStatus] and [TaskSupport] (tasks.go), and the kinds of one feature
// beside it: [ServerState] (state.go), [AskKind], [AskFrom], [AskState] and
// [Action] (ask.go), [CallKind] and [CallState] (calls.go), [ActivityKind]
// (journal.go), [SamplingMode], [ToolChoice] and [StopReason]
// (sampling.go), [Outcome] (agents.go), [RefType] (completion.go) and
// [ClientCapability] (capabilities.go). A value a server sent may be none
// of the constants: the relay converts it, sanitized, where it enters.
package wire
