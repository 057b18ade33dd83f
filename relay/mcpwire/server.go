package mcpwire

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Initialized puts into st what a dashboard shows of a server's initialize
// result: its identity, protocol version and instructions, sanitized, and
// the capabilities it declared, with tasks, the tasks capability the go-sdk
// does not decode (nil for none).
func Initialized(st *wire.Server, init *mcp.InitializeResult, tasks *wire.TaskCapability) {
	st.Info = convertImplementation(init.ServerInfo)
	st.ProtocolVersion = line(init.ProtocolVersion, maxVersionRunes)
	st.Instructions = text(init.Instructions, maxInstructionsRunes)
	st.Capabilities = serverCapabilities(init.Capabilities, tasks)
	if init.Capabilities != nil && init.Capabilities.Logging != nil {
		st.Logging = &wire.Logging{}
	}
}
