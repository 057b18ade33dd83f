// Package toolnames names the tools (and prompts) of a user's servers for a
// consumer that sees all of them in one list: an agent on the aggregate
// endpoint, a model in the chat. A name is server__tool when the tool's
// name fits the consumer's rules; otherwise the tool's name is rewritten
// (other characters as '_', cut) and ends with 8 hex digits of its
// SHA-256, and a collision takes a "-2", "-3"... suffix. The names depend
// only on the server id and the set of names, so they are the same on
// every listing, and never come from cutting alone.
package toolnames

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Separator joins a server id and a name.
const Separator = "__"

// hashChars is how many hex digits of a name's SHA-256 a rewritten name
// ends with.
const hashChars = 8

// Rules say what a consumer takes as a name.
type Rules struct {
	Max int  // the longest name, in bytes
	Dot bool // '.' is allowed besides [A-Za-z0-9_-]
}

// Consumers' rules.
var (
	// MCP is the agent endpoint's: MCP's tool names (128 characters of
	// [A-Za-z0-9_.-]).
	MCP = Rules{Max: 128, Dot: true}
	// Model is the model APIs': OpenAI's and Anthropic's function names
	// (^[a-zA-Z0-9_-]{1,64}$).
	Model = Rules{Max: 64}
)

// Names maps the names of one server's tools (or prompts) to the names the
// consumer sees.
func (r Rules) Names(server string, names []string) map[string]string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	// Verbatim names first, so that a rewritten name never takes a
	// verbatim one's place.
	for _, n := range sorted {
		if e, ok := r.verbatim(server, n); ok {
			out[n], taken[e] = e, true
		}
	}
	for _, n := range sorted {
		if _, ok := out[n]; ok {
			continue
		}
		base := r.Rewritten(server, n)
		e := base
		for i := 2; taken[e]; i++ {
			suffix := "-" + strconv.Itoa(i)
			e = base[:min(len(base), r.Max-len(suffix))] + suffix
		}
		out[n], taken[e] = e, true
	}
	return out
}

// Name is the name of tool of server when no other tool of that server
// collides with it.
func (r Rules) Name(server, tool string) string { return r.Names(server, []string{tool})[tool] }

// verbatim is server__name when name is made of the allowed characters and
// the whole fits.
func (r Rules) verbatim(server, name string) (string, bool) {
	e := server + Separator + name
	if name == "" || len(e) > r.Max || !r.Valid(e) {
		return "", false
	}
	return e, true
}

// Rewritten is server__<name with other characters as '_', cut>_<hash>.
func (r Rules) Rewritten(server, name string) string {
	sum := sha256.Sum256([]byte(name))
	tail := "_" + hex.EncodeToString(sum[:])[:hashChars]
	var b strings.Builder
	for _, c := range server + Separator + name {
		if r.allowed(c) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	head := b.String()
	return head[:min(len(head), r.Max-len(tail))] + tail
}

// Valid reports whether every character of name is allowed.
func (r Rules) Valid(name string) bool {
	return strings.IndexFunc(name, func(c rune) bool { return !r.allowed(c) }) < 0
}

func (r Rules) allowed(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && r.Dot
}
