package conn

import (
	"context"
	"errors"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Steps a connection fails in, the first words of its error.
const (
	stepConnect  = "connect"
	stepDiscover = "discover"
	stepHealth   = "health check"
	stepLost     = "connection lost"
)

// Why a session ends.
var (
	// errRetryNow: [Conn.Retry] asked for a new session.
	errRetryNow = errors.New("retry requested")
	// errRecycle: a long-lived, healthy session lost its notification stream
	// and is replaced at once.
	errRecycle = errors.New("notification stream ended")
	// errSessionEnded cancels the operations of a session that ended.
	errSessionEnded = errors.New("the connection to the server was lost")
	// errStreamClosed: a young session lost its notification stream while
	// the server still answers.
	errStreamClosed = errors.New("the server closed its notification stream")
	// errClosedByServer: the session ended without an error.
	errClosedByServer = errors.New("the server closed the connection")
)

// stepError is a failure in one step of a connection's life.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// failure wraps err as a failure of step.
func failure(step string, err error) error { return &stepError{step: step, err: err} }

// sdkNoise matches the go-sdk's layers of context around a transport error,
// which say nothing to a person.
var sdkNoise = regexp.MustCompile(`(calling|sending) "[^"]*": |: rejected by transport|rejected by transport: `)

// describe turns the cause of a failure into a short message for a person:
// the step, then the innermost error that explains it (a failed request's
// URL is left out). The caller sanitizes the result.
func describe(err error) string {
	var se *stepError
	if errors.As(err, &se) {
		return se.step + ": " + explain(se.err)
	}
	return explain(err)
}

// explain finds the error that explains err best: a network error, else the
// server's JSON-RPC error, else err itself without the go-sdk's layers.
func explain(err error) string {
	var (
		perm   *permanentError
		opErr  *net.OpError
		dnsErr *net.DNSError
		urlErr *url.Error
	)
	switch {
	case errors.As(err, &perm):
		return perm.why
	case errors.As(err, &opErr):
		return opErr.Error()
	case errors.As(err, &dnsErr):
		return dnsErr.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	if rpcErr := serverError(err); rpcErr != nil {
		return rpcErr.Message
	}
	if errors.As(err, &urlErr) {
		return explain(urlErr.Err)
	}
	return strings.TrimSpace(sdkNoise.ReplaceAllString(err.Error(), ""))
}

// rejectedCode and rejectedMessage identify the go-sdk's marker for a
// request its transport rejected (jsonrpc2.ErrRejected, internal), which is
// a *jsonrpc.Error but not the server's.
const (
	rejectedCode    = -32005
	rejectedMessage = "rejected by transport"
)

// serverError returns the first JSON-RPC error in err's tree that is not the
// go-sdk's rejection marker, or nil.
func serverError(err error) *jsonrpc.Error {
	switch e := err.(type) {
	case nil:
		return nil
	case *jsonrpc.Error:
		if e.Code != rejectedCode || e.Message != rejectedMessage {
			return e
		}
		return nil
	case interface{ Unwrap() error }:
		return serverError(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if found := serverError(inner); found != nil {
				return found
			}
		}
	}
	return nil
}
