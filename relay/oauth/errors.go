package oauth

import (
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// userError is a failure whose message may be shown to a person: it never
// holds a token, a code, a verifier or a client secret.
type userError struct {
	msg string
	err error // the cause, for errors.Is; not shown
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// message returns err's text as one sanitized line for a person. Every
// error of this package is built so that it holds no secret.
func message(err error) string { return wire.Sanitize(err.Error(), wire.MaxErrorMessage) }

// upstream turns err into the error of an op.
func upstream(err error) *wire.Error { return wire.NewError(wire.CodeUpstream, err.Error()) }

// redact removes every secret from s, for text an authorization server
// wrote (an error description may echo what it was sent).
func redact(s string, secrets ...string) string {
	for _, secret := range secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}
