package conn

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Code says why an operation on a connection failed.
type Code string

// Codes of an [Error], one per cause.
const (
	// NotReady: the connection has no live session; the message names the
	// server's state.
	NotReady Code = "not_ready"
	// NotFound: the server listed no tool or prompt of that name.
	NotFound Code = "not_found"
	// BadRequest: the request cannot be sent as it is (arguments that are
	// not an object, a tool that runs only as a task called plainly, a
	// subscription beyond the cap).
	BadRequest Code = "bad_request"
	// ConnectionLost: the connection broke before the server answered.
	ConnectionLost Code = "connection_lost"
	// Timeout: the relay's per-call limit ([Config.CallTimeout]) passed.
	Timeout Code = "timeout"
	// Cancelled: the caller gave up, or the server cancelled the task.
	Cancelled Code = "cancelled"
	// TooLarge: the result is over [Config.MaxResultBytes].
	TooLarge Code = "too_large"
	// Server: the server answered with a JSON-RPC error, in [Error.RPC].
	Server Code = "server"
	// Unusable: the server answered something the relay cannot use.
	Unusable Code = "unusable"
	// Internal: the relay itself failed.
	Internal Code = "internal"
)

// Error is the failure of an operation on a connection. Its message says
// the cause once, in words a person reads as they are: sanitized, cut to
// [wire.MaxErrorMessage], and without the connection's secrets (header
// values, secret query values), which a server may quote.
type Error struct {
	Code    Code
	Message string
	// RPC is the server's JSON-RPC error as it sent it, for [Server]: what
	// an agent gets of the failure (its message is not scrubbed).
	RPC *jsonrpc.Error
}

// Error implements error; it is the message.
func (e *Error) Error() string { return e.Message }

// Reason returns e's code as a string and e.RPC: what an edge that does not
// import conn reads of e (relay/mcpwire).
func (e *Error) Reason() (code string, rpc *jsonrpc.Error) { return string(e.Code), e.RPC }

// newError is an error of code with message sanitized.
func newError(code Code, message string) *Error {
	return &Error{Code: code, Message: wire.Sanitize(message, wire.MaxErrorMessage)}
}

// hasCode reports whether err is an [*Error] of code.
func hasCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
