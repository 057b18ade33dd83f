package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Why an operation failed, one wording per cause ([Code]). The dashboard
// shows these messages as they are (capitalised), so they say what
// happened without a prefix of the dashboard's.

// Causes of an operation's context ending that are not the caller's.
var (
	// errCallTimeout ends an operation that outlived Config.CallTimeout.
	errCallTimeout = errors.New("the relay's time limit for a call passed")
)

// Messages of the failures whose wording does not depend on the error.
const (
	msgConnectionLost = "the connection to the server was lost before it answered; the relay reconnects"
	msgCancelled      = "the call was cancelled"
)

// Pieces of the go-sdk's error texts that say a stream or connection broke,
// where it formats the cause with %v and so loses its type.
var brokenTexts = []string{
	"request terminated without response", // a call's response stream ended early
	"failed to reconnect",                 // resuming a stream failed
	"retries without progress",            // likewise
	"connection closed",
}

// opError maps the failure of an operation. caller is the caller's
// context, op the context the operation ran with.
func opError(caller, op context.Context, err error, timeout time.Duration) *Error {
	switch cause := context.Cause(op); {
	case caller.Err() != nil:
		return newError(Cancelled, msgCancelled)
	case errors.Is(cause, errCallTimeout):
		return timeoutError(timeout)
	case errors.Is(cause, errSessionEnded):
		return newError(ConnectionLost, msgConnectionLost)
	}
	if rpcErr := serverError(err); rpcErr != nil {
		return protocolError(rpcErr)
	}
	if connectionBroke(err) {
		return newError(ConnectionLost, msgConnectionLost)
	}
	return unusableAnswer(errors.New(explain(err)))
}

// unusableAnswer says that the server answered something the relay cannot
// use, and why.
func unusableAnswer(err error) *Error {
	return newError(Unusable, "the server's answer could not be used: "+err.Error())
}

// timeoutError says that the relay's per-call limit passed.
func timeoutError(d time.Duration) *Error {
	return newError(Timeout, fmt.Sprintf("the server did not answer within %v, the relay's limit for a call", d))
}

// protocolError is the server's JSON-RPC error, with its code.
func protocolError(e *jsonrpc.Error) *Error {
	out := newError(Server, fmt.Sprintf("the server answered with error %d: %s", e.Code, e.Message))
	out.RPC = e
	return out
}

// tooLarge says that a result is over the limit.
func tooLarge(size, limit int) *Error {
	return newError(TooLarge, fmt.Sprintf("the result is %d bytes, over the relay's limit of %d bytes", size, limit))
}

// refusedAsTooLarge says that the relay stopped reading a result over the
// limit (see [eventLimiter]).
func refusedAsTooLarge(limit int) *Error {
	return newError(TooLarge, fmt.Sprintf("the result is over the relay's limit of %d bytes", limit))
}

// connectionBroke reports whether err says that the connection to the
// server broke, rather than that the server answered.
func connectionBroke(err error) bool {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // a *url.Error is a net.Error whatever its cause
	}
	var netErr net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.As(err, &netErr):
		return true
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return false
	}
	msg := err.Error()
	for _, t := range brokenTexts {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}
