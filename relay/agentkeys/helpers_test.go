package agentkeys_test

import "github.com/switchboard-mcp/switchboard/shared/wire"

func wireArgs(name string, servers ...string) wire.CreateAgentKeyArgs {
	return wire.CreateAgentKeyArgs{Name: name, Servers: servers}
}
