package authn

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// maxSubjectBytes bounds a user id, in tokens and login codes alike.
const maxSubjectBytes = 200

// checkSubject accepts a user id of 1 to maxSubjectBytes bytes of printable
// UTF-8: no control, format or bidi characters that could disguise it.
func checkSubject(sub string) error {
	if sub == "" || len(sub) > maxSubjectBytes || !utf8.ValidString(sub) {
		return ErrBadSubject
	}
	for _, r := range sub {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%w: contains non-printable character %U", ErrBadSubject, r)
		}
	}
	return nil
}
