package store

import "errors"

// ErrNotFound is returned when a record to delete or read does not exist.
var ErrNotFound = errors.New("not found")

// ErrNameTaken is returned by PutServer when the user already has another
// server with the same name.
var ErrNameTaken = errors.New("server name already in use")

// ErrIDTaken is returned by AddServer when the user already has a server
// with the same id.
var ErrIDTaken = errors.New("server id already in use")

// LoginCodeError says why ConsumeLoginCode refused a code. Its only values are
// ErrLoginCodeUnknown, ErrLoginCodeUsed and ErrLoginCodeExpired; compare them
// with errors.Is. Packages that must not import store (relay/authn) tell them
// apart through the CodeUsed and CodeExpired methods.
type LoginCodeError struct {
	msg     string
	used    bool
	expired bool
}

// Error reports the reason without the code itself.
func (e *LoginCodeError) Error() string { return e.msg }

// CodeUsed reports whether the code was valid but has been used already.
func (e *LoginCodeError) CodeUsed() bool { return e.used }

// CodeExpired reports whether the code was valid but its time ran out.
func (e *LoginCodeError) CodeExpired() bool { return e.expired }

// The reasons ConsumeLoginCode refuses a code.
var (
	ErrLoginCodeUnknown = &LoginCodeError{msg: "login code unknown"}
	ErrLoginCodeUsed    = &LoginCodeError{msg: "login code already used", used: true}
	ErrLoginCodeExpired = &LoginCodeError{msg: "login code expired", expired: true}
)
