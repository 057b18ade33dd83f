package mcpwire

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// opError is what Error reads of the failure of an operation on a
// connection (relay/conn's *Error, which this package does not import):
// its message is the error's text, already sanitized and without secrets.
type opError interface {
	error
	Reason() (code string, rpc *jsonrpc.Error)
}

// codes are the wire codes of relay/conn's codes.
var codes = map[string]wire.Code{
	"not_ready":       wire.CodeNotReady,
	"not_found":       wire.CodeNotFound,
	"bad_request":     wire.CodeBadRequest,
	"connection_lost": wire.CodeConnectionLost,
	"timeout":         wire.CodeTimeout,
	"cancelled":       wire.CodeCancelled,
	"too_large":       wire.CodeTooLarge,
	"server":          wire.CodeProtocol,
	"unusable":        wire.CodeUpstream,
	"internal":        wire.CodeInternal,
}

// Error returns err as a dashboard sees it: a [*wire.Error] as it is, and
// the failure of an operation on a connection with its wire code (and, for
// the server's JSON-RPC error, its RPCCode). ok is false for any other
// error, which the caller words itself.
func Error(err error) (we *wire.Error, ok bool) {
	if errors.As(err, &we) {
		return we, true
	}
	var oe opError
	if !errors.As(err, &oe) {
		return nil, false
	}
	name, rpc := oe.Reason()
	code, known := codes[name]
	if !known {
		code = wire.CodeInternal
	}
	we = wire.NewError(code, oe.Error())
	if rpc != nil && code == wire.CodeProtocol {
		we.RPCCode = int(rpc.Code)
	}
	return we, true
}
