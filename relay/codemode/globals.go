package codemode

import (
	"strconv"
	"strings"
	"unicode"
)

// reserved are JavaScript's reserved words and the globals a server may
// not shadow, those in lower case: a server's global is.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else
		enum export extends false finally for function if import in instanceof new null return super switch
		this throw true try typeof var void while with yield let static implements interface package private
		protected public await async arguments eval undefined console escape unescape`) {
		reserved[w] = true
	}
}

// Globals returns each server's global name in programs, in order: its
// name in lower case with each run of other characters than letters,
// digits, _ and $ made one "_", a "_" before a leading digit or after a
// reserved word, "server" for nothing left, and "_2", "_3", … after a name
// already taken. The same names give the same globals.
func Globals(servers []Server) []string {
	out := make([]string, len(servers))
	taken := map[string]bool{}
	for i, s := range servers {
		base := identifier(s.Name)
		name := base
		for n := 2; taken[name]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		taken[name] = true
		out[i] = name
	}
	return out
}

// identifier is name as a JavaScript identifier (see [Globals]).
func identifier(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(name) {
		if r == '_' || r == '$' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
			continue
		}
		gap = true
	}
	id := b.String()
	switch {
	case id == "":
		return "server"
	case id[0] >= '0' && id[0] <= '9':
		id = "_" + id
	case reserved[id]:
		id += "_"
	}
	return id
}

// isIdentifier reports whether s can follow a dot as a property name.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r == '$' || r < unicode.MaxASCII && unicode.IsLetter(r) || i > 0 && r < unicode.MaxASCII && unicode.IsDigit(r)
		if !ok {
			return false
		}
	}
	return true
}
