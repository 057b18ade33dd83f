package session

import (
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// NewRegistration checks a server's settings as [Session.Add] does and
// returns the registration to store, for tools that register servers
// without a running relay (the command line). A running relay picks it up
// with [Manager.Sync].
func NewRegistration(user string, args wire.AddServerArgs) (store.Server, error) {
	return newRegistration(user, args)
}
