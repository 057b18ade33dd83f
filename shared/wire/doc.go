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
package wire
