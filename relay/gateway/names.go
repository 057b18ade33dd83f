package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Naming on the aggregate endpoint; see the package doc.
const (
	// maxName is the longest exposed name.
	maxName = 128
	// nameSeparator joins a server id and a name.
	nameSeparator = "__"
	// hashChars is how many hex digits of a name's SHA-256 a rewritten name ends with.
	hashChars = 8
	// uriPrefix and uriSeparator frame a server id before a resource URI.
	uriPrefix    = "switchboard-"
	uriSeparator = "+"
)

// exposedNames maps the names of one server's tools (or prompts) to the
// names the aggregate endpoint shows. It depends only on the server id and
// the set of names, so that it is the same on every listing.
func exposedNames(server string, names []string) map[string]string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	// Verbatim names first, so that a rewritten name never takes a
	// verbatim one's place.
	for _, n := range sorted {
		if e, ok := verbatim(server, n); ok {
			out[n], taken[e] = e, true
		}
	}
	for _, n := range sorted {
		if _, ok := out[n]; ok {
			continue
		}
		base := rewritten(server, n)
		e := base
		for i := 2; taken[e]; i++ {
			suffix := "-" + strconv.Itoa(i)
			e = base[:min(len(base), maxName-len(suffix))] + suffix
		}
		out[n], taken[e] = e, true
	}
	return out
}

// verbatim is server__name when name is made of the allowed characters and
// the whole fits.
func verbatim(server, name string) (string, bool) {
	e := server + nameSeparator + name
	if name == "" || len(e) > maxName || strings.IndexFunc(name, func(r rune) bool { return !allowedRune(r) }) >= 0 {
		return "", false
	}
	return e, true
}

// rewritten is server__<name with other characters as '_', cut>_<hash>.
func rewritten(server, name string) string {
	sum := sha256.Sum256([]byte(name))
	tail := "_" + hex.EncodeToString(sum[:])[:hashChars]
	var b strings.Builder
	for _, r := range name {
		if allowedRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	head := server + nameSeparator + b.String()
	return head[:min(len(head), maxName-len(tail))] + tail
}

// allowedRune reports whether r may appear in an exposed name.
func allowedRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
}

// exposedURI is the URI (or URI template) the aggregate endpoint shows for
// a server's uri.
func exposedURI(server, uri string) string { return uriPrefix + server + uriSeparator + uri }

// upstreamURI reverses exposedURI: the server id and its URI.
func upstreamURI(exposed string) (server, uri string, ok bool) {
	rest, ok := strings.CutPrefix(exposed, uriPrefix)
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, uriSeparator)
}

// ToolName is the name under which /mcp and /api/tools expose the tool
// tool of server id, when no other tool of that server collides with it
// (see [exposedNames] for collisions).
func ToolName(id, tool string) string { return exposedNames(id, []string{tool})[tool] }
