package gateway

import (
	"strings"

	"github.com/switchboard-mcp/switchboard/relay/toolnames"
)

// Naming on the aggregate endpoint; see the package doc.
const (
	// nameSeparator joins a server id and a name.
	nameSeparator = toolnames.Separator
	// uriPrefix and uriSeparator frame a server id before a resource URI.
	uriPrefix    = "switchboard-"
	uriSeparator = "+"
)

// exposedNames maps the names of one server's tools (or prompts) to the
// names the aggregate endpoint shows (relay/toolnames, MCP's rules).
func exposedNames(server string, names []string) map[string]string {
	return toolnames.MCP.Names(server, names)
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
func ToolName(id, tool string) string { return toolnames.MCP.Name(id, tool) }
