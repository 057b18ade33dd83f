package servercfg

import (
	"errors"
	"strings"
)

// MaxIDLength is the longest server id, in bytes.
const MaxIDLength = 64

// ErrEmptyID is returned by [NormalizeID] for an id with no letter or digit.
var ErrEmptyID = errors.New("the id has no letter, digit, '-' or '_' left once normalized")

// NormalizeID returns the normal form of a server id a person chose: lower
// case, every run of characters outside [a-z0-9_-] replaced by one '-',
// '-' trimmed from both ends, at most [MaxIDLength] bytes.
func NormalizeID(raw string) (string, error) {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(raw) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.Trim(b.String(), "-")
	if len(id) > MaxIDLength {
		id = strings.TrimRight(id[:MaxIDLength], "-")
	}
	if id == "" {
		return "", ErrEmptyID
	}
	return id, nil
}
