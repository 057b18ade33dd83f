package gateway

import "strings"

// nameSeparator joins a server id and a tool name into the name an agent
// sees. Server ids are hex, so the first separator in a name ends the id.
const nameSeparator = "__"

// ToolName is the name under which an agent sees tool of server id.
func ToolName(serverID, tool string) string { return serverID + nameSeparator + tool }

// SplitToolName reverses [ToolName].
func SplitToolName(name string) (serverID, tool string, ok bool) {
	serverID, tool, ok = strings.Cut(name, nameSeparator)
	if !ok || serverID == "" || tool == "" {
		return "", "", false
	}
	return serverID, tool, true
}
