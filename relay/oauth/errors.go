package oauth

import (
	"net/url"
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

// redact returns s, text an authorization server wrote (an error
// description may echo what it was sent), sanitized into one line without
// invisible characters, with every secret removed: as sent, form-encoded
// (url.QueryEscape) and sanitized. Sanitizing comes first, since it would
// otherwise join a secret broken by an invisible character after the
// search for it; it does not truncate, which could cut a secret in two.
func redact(s string, secrets ...string) string {
	s = wire.Sanitize(s, len(s))
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		for _, form := range []string{secret, url.QueryEscape(secret), wire.Sanitize(secret, len(secret))} {
			if form != "" {
				s = strings.ReplaceAll(s, form, redacted)
			}
		}
	}
	return s
}

// redacted stands for a secret removed from a text.
const redacted = "[redacted]"
