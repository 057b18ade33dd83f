package conn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// permanentError is a failure that retrying cannot fix: the connection
// stops retrying and says why, until a person asks again ([Conn.Retry]) or
// changes the server's settings.
type permanentError struct {
	why string // what a person reads
	err error
}

func (e *permanentError) Error() string { return e.why }
func (e *permanentError) Unwrap() error { return e.err }

// errNoGuardedClient fails a connection built without the relay's guarded
// HTTP client: there is no unguarded fallback.
var errNoGuardedClient = &permanentError{why: "the relay has no guarded HTTP client for this connection; it does not connect without one"}

// permanent returns err as a [*permanentError] when retrying cannot fix it:
// an address the network guard refuses, a TLS failure, or an endpoint whose
// first answer (status) says it is not an MCP endpoint of transport. It
// returns err unchanged otherwise.
func permanent(err error, status int, transport wire.Transport) error {
	var (
		certInvalid  x509.CertificateInvalidError
		unknownAuth  x509.UnknownAuthorityError
		hostname     x509.HostnameError
		verification *tls.CertificateVerificationError
		record       tls.RecordHeaderError
	)
	switch {
	case netguard.IsBlocked(err):
		return &permanentError{why: explain(err) + " (refused by the relay's network guard)", err: err}
	case errors.As(err, &certInvalid), errors.As(err, &unknownAuth), errors.As(err, &hostname), errors.As(err, &verification):
		return &permanentError{why: "TLS: " + explain(err), err: err}
	case errors.As(err, &record):
		return &permanentError{why: "TLS: the server did not answer with TLS (is the URL http rather than https?)", err: err}
	case wrongTransport(status):
		return &permanentError{why: wrongTransportHint(status, transport), err: err}
	}
	return err
}

// wrongTransportHint explains a 400, 404 or 405 to the first request of
// transport, and what to switch to.
func wrongTransportHint(status int, transport wire.Transport) string {
	answer := fmt.Sprintf("the server answered %d %s", status, http.StatusText(status))
	switch transport {
	case wire.TransportSSE:
		return answer + " to the SSE stream: check the URL, or switch the transport to Streamable HTTP or auto"
	case wire.TransportAuto:
		return answer + " to both Streamable HTTP and SSE: check the URL"
	}
	return answer + " to Streamable HTTP: check the URL, or switch the transport to SSE or auto"
}
