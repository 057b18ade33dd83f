package store

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

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

// ErrDiskFull is matched (errors.Is) by a store error whose cause is the
// relay's disk: full, or failing writes.
var ErrDiskFull = errors.New("the relay's disk is full")

// diskError names a full or failing disk before SQLite's own words.
type diskError struct {
	err    error
	detail string
}

func (e *diskError) Error() string { return "the relay's disk is " + e.detail + ": " + e.err.Error() }

func (e *diskError) Unwrap() []error { return []error{ErrDiskFull, e.err} }

// DiskFull reports whether err was caused by the relay's disk being full or
// failing writes.
func DiskFull(err error) bool {
	if errors.Is(err, ErrDiskFull) {
		return true
	}
	_, ok := diskCause(err)
	return ok
}

// diskCause says how SQLite's err is the disk's doing: "full", or "full or
// failing" for an I/O error (SQLite reports an I/O error, not a full disk,
// when it cannot even grow its shared memory file).
func diskCause(err error) (string, bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return "", false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return "full", true
	case sqlite3.SQLITE_IOERR:
		return "full or failing", true
	}
	return "", false
}

// named returns err naming the disk when the disk caused it.
func named(err error) error {
	if err == nil || errors.Is(err, ErrDiskFull) {
		return err
	}
	if detail, ok := diskCause(err); ok {
		return &diskError{err: err, detail: detail}
	}
	return err
}
